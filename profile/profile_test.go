package profile

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/results"
)

// fakeChild is a child that profiles on request: it writes a marker to
// the files it is given, logs the requests, and fails those in fail.
type fakeChild struct {
	name string
	log  *[]string
	fail map[string]error
}

func (c *fakeChild) do(req, path string) error {
	*c.log = append(*c.log, c.name+" "+req)
	if err := c.fail[req]; err != nil {
		return err
	}
	if path != "" {
		return os.WriteFile(path, []byte(c.name), 0o600)
	}
	return nil
}

func (c *fakeChild) StartCPUProfile(path string) error   { return c.do("cpu-start", path) }
func (c *fakeChild) StopCPUProfile() error               { return c.do("cpu-stop", "") }
func (c *fakeChild) StartAllocProfile(path string) error { return c.do("alloc-start", path) }
func (c *fakeChild) StopAllocProfile(path string) error  { return c.do("alloc-stop", path) }

// isPprof reports whether file holds a gzip-compressed, non-empty
// profile, as runtime/pprof writes them.
func isPprof(t *testing.T, file string) bool {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Error(err)
		return false
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return false
	}
	raw, err := io.ReadAll(zr)
	return err == nil && len(raw) > 0
}

// TestCaseProfile profiles a case with this process and two children:
// each child is asked once to start and once to stop each profile, in
// the order the hook promises, every file is written and noted, and a
// second end changes nothing. Not parallel: a process has one CPU
// profile at a time.
func TestCaseProfile(t *testing.T) {
	dir := t.TempDir()
	var log []string
	srv, prx := &fakeChild{name: "server", log: &log}, &fakeChild{name: "proxy", log: &log}
	cp := Settings{Dir: dir, Alloc: true}.Case("handshake/tls1.3/full/c8", "", true, srv, prx)
	hook := cp.Hook()
	hook(true)
	log = append(log, "measured")
	hook(false)
	cp.end() // again, as Notes does
	want := []string{"proxy alloc-start", "proxy cpu-start", "server alloc-start", "server cpu-start", "measured",
		"server cpu-stop", "server alloc-stop", "proxy cpu-stop", "proxy alloc-stop"}
	if !slices.Equal(log, want) {
		t.Errorf("requests %v\nwant %v", log, want)
	}
	base := filepath.Join(dir, "handshake_tls1.3_full_c8")
	for _, f := range []string{".client.pprof", ".client.alloc.pprof", ".client.alloc.base.pprof"} {
		if !isPprof(t, base+f) {
			t.Errorf("%s: not a profile", f)
		}
	}
	rec := &results.Record{}
	Notes([]*results.Record{rec}, []*Case{cp})
	note := "profiles: " + strings.Join([]string{
		base + ".client.pprof", base + ".client.alloc.pprof", base + ".client.alloc.base.pprof",
		base + ".server.pprof", base + ".server.alloc.pprof", base + ".server.alloc.base.pprof",
		base + ".proxy.pprof", base + ".proxy.alloc.pprof", base + ".proxy.alloc.base.pprof",
	}, ", ")
	if !slices.Equal(rec.Notes, []string{note}) {
		t.Errorf("notes %q\nwant %q", rec.Notes, note)
	}
}

// TestCaseProfileFailures: a profile that cannot be written is a note,
// the others are still written; a child that failed to start a profile
// is not asked to stop it. Not parallel: it holds this process's CPU
// profile.
func TestCaseProfileFailures(t *testing.T) {
	dir := t.TempDir()
	var log []string
	srv := &fakeChild{name: "server", log: &log, fail: map[string]error{"cpu-start": errors.New("open x: permission denied")}}
	prx := &fakeChild{name: "proxy", log: &log, fail: map[string]error{"cpu-stop": errors.New("the built-in proxy: control channel: EOF")}}
	// Another CPU profile already runs in this process (serve --profile
	// in the same process, say): the client's cannot start.
	if err := pprof.StartCPUProfile(io.Discard); err != nil {
		t.Fatal(err)
	}
	cp := Settings{Dir: dir}.Case("c/x", "b", true, srv, prx)
	cp.begin()
	cp.end()
	pprof.StopCPUProfile()
	if want := []string{"proxy cpu-start", "server cpu-start", "proxy cpu-stop"}; !slices.Equal(log, want) {
		t.Errorf("requests %v, want %v", log, want)
	}
	notes := cp.notes(nil)
	if len(notes) != 3 {
		t.Errorf("notes %q: want the three profiles not written, no file", notes)
	}
	for _, w := range []string{"client CPU profile not written: cpu profiling already in use", "server CPU profile not written: open x: permission denied",
		"proxy CPU profile not written: the built-in proxy: control channel: EOF"} {
		if !slices.Contains(notes, w) {
			t.Errorf("notes %q: want %q", notes, w)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "c_x.client.pprof")); err == nil {
		t.Error("the client's profile file was left behind")
	}
}

// TestSettingsValidate: the directory is checked, and made, before a
// run; what cannot hold profiles is an error naming the field.
func TestSettingsValidate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o600)
	for _, tc := range []struct {
		name  string
		pr    Settings
		field string
		want  string
	}{
		{"none", Settings{}, "", ""},
		{"alloc alone", Settings{Alloc: true}, "Profile.Alloc", "needs Profile.Dir"},
		{"a file", Settings{Dir: file}, "Profile.Dir", "is a file, not a directory"},
		{"under a file", Settings{Dir: filepath.Join(file, "sub")}, "Profile.Dir", "cannot be created: not a directory"},
		{"made", Settings{Dir: filepath.Join(dir, "a", "b")}, "", ""},
	} {
		err := tc.pr.Validate()
		var fe *field.Error
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.field != "" && (!errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(fe.Reason, tc.want)):
			t.Errorf("%s: %v, want field %s: %s", tc.name, err, tc.field, tc.want)
		}
	}
	fi, err := os.Stat(filepath.Join(dir, "a", "b"))
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Errorf("made directory: %v %v, want a directory, 0700", fi, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "a", "b", "*")); len(left) != 0 {
		t.Errorf("validation left %v", left)
	}
}
