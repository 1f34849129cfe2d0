package ktls

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
)

func crOf(i int) [32]byte {
	var cr [32]byte
	cr[0], cr[1], cr[31] = byte(i>>8), byte(i), 0x77
	return cr
}

func line(label string, cr [32]byte, secret byte, n int) string {
	return fmt.Sprintf("%s %x %x\n", label, cr, bytes.Repeat([]byte{secret}, n))
}

// TestConnKeyLog: one connection's log keeps the secrets of one client
// random and distrusts anything a single handshake does not write.
func TestConnKeyLog(t *testing.T) {
	t.Parallel()
	a, b := crOf(1), crOf(2)
	tls13 := line(labelClientHandshake, a, 1, 32) + line(labelServerHandshake, a, 4, 32) +
		line(labelClientTraffic, a, 2, 32) + line(labelServerTraffic, a, 3, 32) + line("EXPORTER_SECRET", a, 5, 32)
	for _, tc := range []struct {
		name    string
		lines   string
		wantBad string // "" means trusted
	}{
		{"tls13", tls13, ""},
		{"tls12", line(labelTLS12, a, 9, 48), ""},
		{"blank lines", "\n" + line(labelTLS12, a, 9, 48) + "  \n", ""},
		{"second client random", line(labelClientTraffic, a, 2, 32) + line(labelServerTraffic, b, 3, 32), "second client random"},
		{"repeated label", line(labelTLS12, a, 9, 48) + line(labelTLS12, a, 8, 48), "logged twice"},
		{"repeated unused label", tls13 + line("EXPORTER_SECRET", a, 6, 32), "logged twice"},
		{"malformed", "CLIENT_RANDOM zz 00\n", "malformed client random"},
		{"two fields", "CLIENT_RANDOM 00\n", "malformed key log line"},
		{"bad secret", fmt.Sprintf("CLIENT_RANDOM %x xyz\n", a), "malformed secret"},
		{"too many labels", func() string {
			var s string
			for i := range maxKeyLogLabels + 1 {
				s += line(fmt.Sprintf("LABEL_%d", i), a, 1, 32)
			}
			return s
		}(), "more key log lines"},
		{"endless line", strings.Repeat("A", maxKeyLogLine+1), "longer than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var tee bytes.Buffer
			rc := WrapConn(nil)
			w := ClientConfig(&tls.Config{KeyLogWriter: &tee}, rc).KeyLogWriter
			// Split mid-line to exercise buffering of partial lines.
			cut := min(50, len(tc.lines))
			w.Write([]byte(tc.lines[:cut]))
			w.Write([]byte(tc.lines[cut:]))
			if tee.String() != tc.lines {
				t.Error("the base config's writer did not receive the lines unchanged")
			}
			sec, cr, logged, bad := rc.keys.take()
			switch {
			case tc.wantBad == "" && bad != nil:
				t.Fatalf("distrusted: %v", bad)
			case tc.wantBad != "" && (bad == nil || !strings.Contains(bad.Error(), tc.wantBad)):
				t.Fatalf("distrust reason %v, want %q", bad, tc.wantBad)
			case tc.wantBad != "":
				return
			}
			if !logged || cr != a {
				t.Fatalf("client random %x logged %v", cr, logged)
			}
			if tc.name == "tls13" && (!bytes.Equal(sec.clientTraffic0, bytes.Repeat([]byte{2}, 32)) || !bytes.Equal(sec.serverTraffic0, bytes.Repeat([]byte{3}, 32)) ||
				!bytes.Equal(sec.clientHandshake, bytes.Repeat([]byte{1}, 32)) || !bytes.Equal(sec.serverHandshake, bytes.Repeat([]byte{4}, 32)) || sec.master != nil) {
				t.Errorf("TLS 1.3 secrets: %+v", sec)
			}
			if tc.name == "tls12" && !bytes.Equal(sec.master, bytes.Repeat([]byte{9}, 48)) {
				t.Errorf("TLS 1.2 secret: %+v", sec)
			}
			// Consumed: later lines are dropped, a second take is empty.
			w.Write([]byte(line(labelTLS12, b, 7, 48)))
			if sec, _, _, bad := rc.keys.take(); sec.master != nil || bad != nil {
				t.Errorf("after take: %+v %v", sec, bad)
			}
		})
	}
}

// TestClientConfigReusedAsBase: a config from ClientConfig used as the
// base of another connection's does not feed the first connection's log.
func TestClientConfigReusedAsBase(t *testing.T) {
	t.Parallel()
	var tee bytes.Buffer
	rc1, rc2 := WrapConn(nil), WrapConn(nil)
	c1 := ClientConfig(&tls.Config{KeyLogWriter: &tee}, rc1)
	c2 := ClientConfig(c1, rc2)
	c2.KeyLogWriter.Write([]byte(line(labelTLS12, crOf(2), 1, 48)))
	if _, _, logged, _ := rc1.keys.take(); logged {
		t.Error("the second connection's line reached the first connection's log")
	}
	if _, cr, logged, _ := rc2.keys.take(); !logged || cr != crOf(2) {
		t.Error("the second connection's log is empty")
	}
	if tee.Len() == 0 {
		t.Error("the original writer lost the line")
	}
}

// wrapped is a connection wrapper exposing what it wraps, as the server's
// handshake tracker does.
type wrapped struct{ net.Conn }

func (w wrapped) NetConn() net.Conn { return w.Conn }

type loop struct{ net.Conn }

func (l *loop) NetConn() net.Conn { return l }

func TestFindRecordConn(t *testing.T) {
	t.Parallel()
	rc := WrapConn(nil)
	if findRecordConn(wrapped{wrapped{rc}}) != rc {
		t.Error("RecordConn under two wrappers not found")
	}
	if findRecordConn(wrapped{&net.TCPConn{}}) != nil {
		t.Error("found a RecordConn where there is none")
	}
	if findRecordConn(&loop{}) != nil {
		t.Error("a NetConn cycle returned something")
	}
	var nilConn net.Conn
	if findRecordConn(nilConn) != nil {
		t.Error("nil")
	}
}

// TestReusedClientConfigRefused: a per-connection config used for a second
// handshake logs a second client random into the first connection's log;
// Enable then refuses that connection, and not as "unsupported" (it is a
// bug or an attack, not a kernel limit).
func TestReusedClientConfigRefused(t *testing.T) {
	t.Parallel()
	var first *RecordConn
	var reused *tls.Config
	cl, _ := handshakePairOpts(t, tls.VersionTLS13, CipherChaCha20Poly1305, true, pairOpts{clientLog: func(w io.Writer) io.Writer { return w }})
	first = cl.rc
	reused = &tls.Config{KeyLogWriter: &keyLogWriter{log: &first.keys}}
	// A second handshake whose config logs into the first connection.
	cl2, _ := handshakePairOpts(t, tls.VersionTLS13, CipherChaCha20Poly1305, true, pairOpts{clientLog: func(w io.Writer) io.Writer {
		return io.MultiWriter(w, reused.KeyLogWriter)
	}})
	_, err := prepare(cl.tc, first, Both)
	if err == nil || errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "second client random") {
		t.Fatalf("first connection: %v", err)
	}
	if _, err := prepare(cl2.tc, cl2.rc, Both); err != nil {
		t.Fatalf("the second connection's own log: %v", err)
	}
}
