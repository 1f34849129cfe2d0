package html

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

func TestGolden(t *testing.T) {
	t.Parallel()
	recs := loadRecords(t, resultsFile)
	checkGolden(t, filepath.Join("testdata", "html.golden"), renderHTML(t, Run{Records: recs}))
}

func TestNoRecords(t *testing.T) {
	t.Parallel()
	got := string(renderHTML(t, Run{}))
	if !strings.Contains(got, "<p class=\"missing\">no results</p>") {
		t.Errorf("html without records does not say \"no results\"")
	}
}

// TestStream checks that the page's stream writes nothing before Close,
// and the same bytes as RenderHTML.
func TestStream(t *testing.T) {
	t.Parallel()
	recs := loadRecords(t, resultsFile)
	var buf bytes.Buffer
	s := NewStream(&buf)
	for i := range recs {
		if err := s.Add(&recs[i]); err != nil {
			t.Fatal(err)
		}
		if buf.Len() > 0 {
			t.Errorf("Add of record %d wrote output", i)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(&recs[0]); err == nil {
		t.Errorf("Add after Close succeeded")
	}
	if want := renderHTML(t, Run{Records: recs}); !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("stream output differs from RenderHTML")
	}
}
