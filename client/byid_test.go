package client_test

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/client/sessionid"
	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/internal/testpki"
)

func dialT(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { c.Close() })
	return c
}

// TestIDSessionsAgainstOpenSSL: openssl s_server -no_ticket keeps
// sessions by ID. A connection that is to offer and finds none makes a
// full handshake (dry) whose session the scope keeps; the next resumes
// it; another client's scope holds nothing of it; the scope keeps at
// most its size, newest in, oldest out.
func TestIDSessionsAgainstOpenSSL(t *testing.T) {
	t.Parallel()
	ca, _, files := testpki.ServerFiles(t)
	srv := peers.OpenSSL(t, "-tls1_2", "-no_ticket", "-www", "-cert", files.Cert, "-key", files.Key)
	cfg := &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost"}
	pool := client.NewIDSessions(2)
	c, st, err := pool.Handshake(dialT(t, srv.Addr), cfg, 0, true)
	if err != nil || !st.Dry || st.Resumed || st.Cipher == 0 || pool.Len(0) != 1 {
		t.Fatalf("first: %v, state %+v, %d sessions", err, st, pool.Len(0))
	}
	c.Close()
	c, st, err = pool.Handshake(dialT(t, srv.Addr), cfg, 0, true)
	if err != nil || !st.Resumed || st.Dry || st.Group == 0 {
		t.Fatalf("resumption: %v, state %+v", err, st)
	}
	if _, err := client.RequestHTTPGet.Send(c, "localhost"); err != nil {
		t.Errorf("a request over the resumed connection: %v", err)
	}
	c.Close()
	if pool.Len(1) != 0 {
		t.Error("another client's scope holds the session")
	}
	for range 2 {
		c, _, err := pool.Handshake(dialT(t, srv.Addr), cfg, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	if pool.Len(0) != 2 {
		t.Errorf("%d sessions, want the size, 2", pool.Len(0))
	}
	if noID, misses := pool.Counts(); noID != 0 || misses != 0 || pool.Notes() != nil {
		t.Errorf("counts %d, %d, notes %q: want none", noID, misses, pool.Notes())
	}
}

// TestIDSessionsWithoutSessionIDs: Go's own server gives no session ID:
// the full handshake is a connection all the same, counted, and the
// reason and notes say so.
func TestIDSessionsWithoutSessionIDs(t *testing.T) {
	t.Parallel()
	ca, id := testpki.Identity(t)
	addr := tlsServer(t, id)
	pool := client.NewIDSessions(1)
	c, st, err := pool.Handshake(dialT(t, addr), &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost"}, 0, true)
	if err != nil || st.Resumed || c == nil {
		t.Fatalf("full handshake: %v, state %+v", err, st)
	}
	c.Close()
	if noID, _ := pool.Counts(); noID != 1 || pool.Len(0) != 0 {
		t.Errorf("no session ID counted %d times, %d sessions kept", noID, pool.Len(0))
	}
	if why := pool.Why(); why != "the server gave no session ID; it resumes by ticket only, if at all" {
		t.Errorf("why %q", why)
	}
	if notes := pool.Notes(); len(notes) != 1 || !strings.Contains(notes[0], "1 full handshakes got no session ID") {
		t.Errorf("notes %q", notes)
	}
	var none *client.IDSessions
	if none.Notes() != nil {
		t.Error("a case without session IDs has notes")
	}
}

// TestErrKind: the failures of a resumption by ID are named as
// crypto/tls's are, the rest as connerr names them.
func TestErrKind(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("handshake: %w", &sessionid.AlertError{Alert: 40}), "alert:handshake failure"},
		{fmt.Errorf("handshake: %w", sessionid.ErrBadFinished), "bad-finished"},
		{sessionid.ErrBadRecordMAC, "bad-record-mac"},
		{sessionid.ErrUnsupportedSuite, "unsupported-suite"},
		{fmt.Errorf("after handshake: %w", io.EOF), "eof"},
		{tls.AlertError(40), "alert:handshake failure"},
	} {
		if got := client.ErrKind(tt.err); got != tt.want {
			t.Errorf("ErrKind(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
