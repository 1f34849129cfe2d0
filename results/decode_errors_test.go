package results_test

import (
	"io"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

// TestDecodeErrorsSpeakJSON: a line that does not decode is described in
// the file's terms (the field, what it should hold, what it holds), never
// in the program's (Go types, package names, library errors).
func TestDecodeErrorsSpeakJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
	}{
		{`[1,2,3]`, `line 1: not a tlsbench result: the line holds a list, not an object`},
		{`"text"`, `line 1: not a tlsbench result: the line holds a string, not an object`},
		{`{"name":"x","kind":"handshake","handshakes":"12"}`, `line 1: not a tlsbench result: field "handshakes": want a whole number, got a string`},
		{`{"name":"x","kind":"handshake","handshakes":1.5}`, `line 1: not a tlsbench result: field "handshakes": want a whole number, got 1.5`},
		{`{"name":"x","kind":"handshake","handshakes":1e30}`, `line 1: not a tlsbench result: field "handshakes": 1e30 is out of range`},
		{`{"name":"x","kind":"handshake","resume":1}`, `line 1: not a tlsbench result: field "resume": want true or false, got a number`},
		{`{"name":"x","kind":"handshake","env":{"gomaxprocs":"a"}}`, `line 1: not a tlsbench result: field "env.gomaxprocs": want a whole number, got a string`},
		{`{"name":"x","kind":"handshake","samples_us":{}}`, `line 1: not a tlsbench result: field "samples_us": want a list, got an object`},
		{`{"name":"x","kind":"handshake","samples_us":[1e400]}`, `line 1: not a tlsbench result: field "samples_us": 1e400 is out of range`},
		{"\n" + `{"name":"x",`, `line 2: not a tlsbench result: the line ends inside its JSON value (was it cut?)`},
		{`{"name":x}`, `line 1: not a tlsbench result: not valid JSON at character 9`},
	}
	for _, tt := range tests {
		_, err := results.Decode(strings.NewReader(tt.in))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.in, err, tt.want)
			continue
		}
		assertNoInternals(t, err.Error())
	}
}

func assertNoInternals(t *testing.T, msg string) {
	t.Helper()
	for _, bad := range []string{"Go ", "results.", "Record", "json:", "unmarshal", "bufio", "int64", "float64", "token too long"} {
		if strings.Contains(msg, bad) {
			t.Errorf("error %q speaks of the program (%q)", msg, bad)
		}
	}
}

// TestDecodeRefusesHugeLine: a line far longer than any result (100 MB,
// not held in memory by the test) is refused by its number and its size,
// not with the reader's internal error.
func TestDecodeRefusesHugeLine(t *testing.T) {
	t.Parallel()
	huge := io.MultiReader(strings.NewReader("\n{\"name\":\""), io.LimitReader(repeat('a'), 100<<20), strings.NewReader("\"}\n"))
	_, err := results.Decode(huge)
	if err == nil || !strings.HasPrefix(err.Error(), "line 2: not a tlsbench result: the line is longer than 64 MiB") {
		t.Fatalf("error %v, want line 2 refused for its length", err)
	}
	assertNoInternals(t, err.Error())
}

type repeat byte

func (r repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}
