package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

// TestServerResumedZeroIsKnown: a server that counted 0 resumed
// handshakes is a known zero and is shown as one in every format for
// people; only null (the server could not be asked) is "—".
func TestServerResumedZeroIsKnown(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		handshakes int64
		server     *int64
		want       string
	}{
		{"no handshakes, server counted none", 0, results.Int(0), "0%/0%"},
		{"handshakes, server counted none", 64, results.Int(0), "0%/0%"},
		{"no handshakes, server resumed some", 0, results.Int(3), "0%/3!"},
		{"server not asked", 0, nil, "0%"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// One iteration was measured: a record without any is a case that
			// did not run, whose cells are all unknown.
			r := &results.Record{Name: "handshake/tls1.3/full/c1", Kind: results.KindHandshake, Handshakes: tt.handshakes, ServerResumed: tt.server, Iterations: 1}
			if got := resumedCell(r); got != tt.want {
				t.Errorf("resumedCell = %q, want %q", got, tt.want)
			}
			for _, f := range []Format{Table, Markdown} {
				var buf bytes.Buffer
				if err := Render(&buf, f, []results.Record{*r}); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(buf.String(), tt.want) {
					t.Errorf("%s: no %q in\n%s", f, tt.want, buf.String())
				}
			}
		})
	}
}
