package sessionid

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestPRFVector checks the TLS 1.2 PRF with SHA-256 against the test
// vector published for it (secret, seed and "test label", 100 bytes).
func TestPRFVector(t *testing.T) {
	t.Parallel()
	secret, _ := hex.DecodeString("9bbe436ba940f017b17652849a71db35")
	seed, _ := hex.DecodeString("a0ba9f936cda311827a6f796ffd5198c")
	want := "e3f229ba727be17b8d122620557cd453c2aab21d07c3d495329b52d4e61edb5a6b301791e90d35c9c9a46b4e14baf9af0fa022f7077def17abfd3797c0564bab4fbc91666e9def9b97fce34f796789baa48082d122ee42c5a72e5a5110fff70187347b66"
	out := make([]byte, 100)
	prf(sha256.New, out, secret, "test label", seed)
	if got := hex.EncodeToString(out); got != want {
		t.Fatalf("PRF = %s\nwant  %s", got, want)
	}
}

func resumeTestServer(t *testing.T, ts *testServer) (*Conn, <-chan error, error) {
	t.Helper()
	conn, done := pair(t, ts)
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	c, err := Resume(context.Background(), conn, ts.session)
	return c, done, err
}

// TestResumeEcho resumes with every suite, with and without EMS, and
// sends data over several records both ways.
func TestResumeEcho(t *testing.T) {
	t.Parallel()
	payload := bytes.Repeat([]byte("tlsbench session-id "), 5000) // 100 kB: 7 records
	for _, id := range SupportedSuites() {
		for _, ems := range []bool{true, false} {
			name := suiteName(id) + "/ems"
			if !ems {
				name = suiteName(id) + "/no_ems"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				ts := &testServer{session: testSession(t, id, ems)}
				c, done, err := resumeTestServer(t, ts)
				if err != nil {
					t.Fatal(err)
				}
				st := c.ConnectionState()
				if !st.DidResume || st.CipherSuite != id || st.ExtendedMaster != ems || st.Version != tls.VersionTLS12 ||
					st.NegotiatedProtocol != "http/1.1" || !bytes.Equal(st.SessionID, ts.session.id) {
					t.Fatalf("state %+v", st)
				}
				// The hello offers no ticket, EMS only for an EMS
				// session, the name and the protocol.
				if slices.Contains(ts.offered, extSessionTicket) || slices.Contains(ts.offered, extExtendedMaster) != ems ||
					!slices.Contains(ts.offered, extServerName) || !slices.Contains(ts.offered, extRenegotiationInf) {
					t.Fatalf("the ClientHello offered extensions %v", ts.offered)
				}
				go c.Write(payload)
				got := make([]byte, len(payload))
				if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, payload) {
					t.Fatalf("echo: %v", err)
				}
				c.Close()
				if err := <-done; err != nil {
					t.Fatalf("server: %v", err)
				}
			})
		}
	}
}

// TestResumeRefused covers the answers that must not give a resumed
// connection.
func TestResumeRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		ts   testServer
		want error
		text string
	}{
		{"cache miss", testServer{newSession: true}, ErrNotResumed, "did not resume"},
		{"wrong finished", testServer{badFinished: true}, ErrBadFinished, "Finished"},
		{"unsolicited extension", testServer{extraExtension: true}, nil, "extension 35"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.ts.session = testSession(t, tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, true)
			c, done, err := resumeTestServer(t, &tc.ts)
			if c != nil || err == nil {
				t.Fatalf("Resume = %v, %v; want an error and no connection", c, err)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("Resume: %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("Resume: %v, want it to say %q", err, tc.text)
			}
			<-done
		})
	}
}

// TestResumeSessionMismatch: a session resumed with another EMS state
// than it was made with is refused (RFC 7627 §5.3).
func TestResumeSessionMismatch(t *testing.T) {
	t.Parallel()
	s := testSession(t, tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, true)
	served := *s
	served.ems = false
	conn, done := pair(t, &testServer{session: &served})
	_, err := Resume(context.Background(), conn, s)
	if err == nil || !strings.Contains(err.Error(), "extended master secret") {
		t.Fatalf("Resume: %v, want an extended master secret mismatch", err)
	}
	<-done
}

// TestUnsupportedSuite: nothing is sent for a suite the record layer
// does not have.
func TestUnsupportedSuite(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan int, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- -1
			return
		}
		n, _ := io.Copy(io.Discard, c)
		got <- int(n)
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s := testSession(t, tls.TLS_RSA_WITH_AES_128_GCM_SHA256, false)
	if _, err := Resume(context.Background(), conn, s); !errors.Is(err, ErrUnsupportedSuite) ||
		!strings.Contains(err.Error(), "TLS_RSA_WITH_AES_128_GCM_SHA256") {
		t.Fatalf("Resume: %v, want ErrUnsupportedSuite naming the suite", err)
	}
	if n := <-got; n != 0 {
		t.Fatalf("the server read %d bytes, want none", n)
	}
}

// afterHandshake runs a resumed connection whose server does f after
// the handshake, and returns the client's connection.
func afterHandshake(t *testing.T, f func(sc *Conn) error) (*Conn, <-chan error) {
	t.Helper()
	ts := &testServer{session: testSession(t, tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, true), afterHandshake: f}
	c, done, err := resumeTestServer(t, ts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, done
}

// TestRecordLayer covers what a server may send after the handshake.
func TestRecordLayer(t *testing.T) {
	t.Parallel()
	writeRaw := func(sc *Conn, typ uint8, payload []byte, tamper func([]byte)) error {
		rec, err := sc.out.appendRecord(nil, typ, versionTLS12, payload)
		if err != nil {
			return err
		}
		if tamper != nil {
			tamper(rec)
		}
		_, err = sc.conn.Write(rec)
		return err
	}
	for _, tc := range []struct {
		name   string
		server func(sc *Conn) error
		want   string // what the client's Read error says; "" for data "ok"
	}{
		{"fatal alert", func(sc *Conn) error {
			return writeRaw(sc, recordAlert, []byte{alertLevelFatal, alertHandshakeFailure}, nil)
		}, "fatal TLS alert handshake_failure (40)"},
		{"close_notify", func(sc *Conn) error { return sc.sendAlert(alertLevelWarning, alertCloseNotify) }, io.EOF.Error()},
		{"bad record MAC", func(sc *Conn) error {
			return writeRaw(sc, recordApplicationData, []byte("ok"), func(r []byte) { r[len(r)-1] ^= 1 })
		}, ErrBadRecordMAC.Error()},
		{"oversized record", func(sc *Conn) error {
			_, err := sc.conn.Write([]byte{recordApplicationData, 3, 3, 0x48, 0x01})
			return err
		}, "more than TLS allows"},
		{"decrypted record too long", func(sc *Conn) error {
			return writeRaw(sc, recordApplicationData, make([]byte, maxPlaintext+1), nil)
		}, "longer than 16 KiB"},
		{"unexpected handshake message", func(sc *Conn) error {
			return writeRaw(sc, recordHandshake, []byte{typeFinished, 0, 0, 0}, nil)
		}, "unexpected handshake message"},
		{"empty records without end", func(sc *Conn) error {
			for range maxIdleRecords + 1 {
				if err := writeRaw(sc, recordApplicationData, nil, nil); err != nil {
					return err
				}
			}
			return nil
		}, "records in a row without data"},
		{"warning alert then data", func(sc *Conn) error {
			if err := writeRaw(sc, recordAlert, []byte{alertLevelWarning, 90}, nil); err != nil {
				return err
			}
			return writeRaw(sc, recordApplicationData, []byte("ok"), nil)
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, done := afterHandshake(t, func(sc *Conn) error {
				err := tc.server(sc)
				io.Copy(io.Discard, sc.conn)
				return err
			})
			b := make([]byte, 10)
			n, err := c.Read(b)
			switch {
			case tc.want == "" && (err != nil || string(b[:n]) != "ok"):
				t.Fatalf("Read = %q, %v; want ok", b[:n], err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Read = %q, %v; want an error saying %q", b[:n], err, tc.want)
			}
			c.Close()
			if err := <-done; err != nil {
				t.Fatalf("server: %v", err)
			}
		})
	}
}

// TestHelloRequestRefused: a HelloRequest gets a no_renegotiation
// warning, and the connection goes on.
func TestHelloRequestRefused(t *testing.T) {
	t.Parallel()
	c, done := afterHandshake(t, func(sc *Conn) error {
		rec, _ := sc.out.appendRecord(nil, recordHandshake, versionTLS12, []byte{typeHelloRequest, 0, 0, 0})
		if _, err := sc.conn.Write(rec); err != nil {
			return err
		}
		typ, body, err := sc.readRecord()
		if err != nil || typ != recordAlert || body != nil {
			return errors.New("test server: no warning alert after the HelloRequest")
		}
		_, err = sc.Write([]byte("ok"))
		return err
	})
	b := make([]byte, 2)
	if _, err := io.ReadFull(c, b); err != nil || string(b) != "ok" {
		t.Fatalf("Read = %q, %v", b, err)
	}
	if err := <-done; err != nil {
		t.Fatalf("server: %v", err)
	}
}

// TestCloseSendsCloseNotify: the server reads the end of the stream as
// close_notify (io.EOF from the record layer), not a bare close.
func TestCloseSendsCloseNotify(t *testing.T) {
	t.Parallel()
	c, done := afterHandshake(t, func(sc *Conn) error {
		_, _, err := sc.readRecord()
		if err != io.EOF {
			return errors.New("test server: no close_notify")
		}
		return nil
	})
	c.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestResumeContext: a context that ends stops the handshake.
func TestResumeContext(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			io.Copy(io.Discard, c) // never answers
		}
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	s := testSession(t, tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, true)
	if _, err := Resume(ctx, conn, s); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Resume: %v, want the context's deadline", err)
	}
}

// TestConcurrentResume resumes one session from many goroutines at once,
// as a load generator does.
func TestConcurrentResume(t *testing.T) {
	t.Parallel()
	s := testSession(t, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, true)
	errs := make(chan error, 8)
	for range 8 {
		conn, done := pair(t, &testServer{session: s})
		go func() {
			c, err := Resume(context.Background(), conn, s)
			if err != nil {
				errs <- err
				return
			}
			c.Write([]byte("x"))
			b := make([]byte, 1)
			_, err = io.ReadFull(c, b)
			c.Close()
			if err == nil {
				err = <-done
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestSessionPrintsNoSecret: fmt shows a session's ID and suite, never
// its master secret.
func TestSessionPrintsNoSecret(t *testing.T) {
	t.Parallel()
	s := testSession(t, tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, true)
	secret := hex.EncodeToString(s.masterSecret[:4])
	for _, format := range []string{"%v", "%+v", "%#v", "%s", "%x"} {
		out := fmt.Sprintf(format, s)
		if strings.Contains(out, secret) || strings.Contains(out, string(s.masterSecret[:4])) || strings.Contains(out, fmt.Sprint(s.masterSecret[:4])) {
			t.Fatalf("%s shows the master secret: %s", format, out)
		}
	}
	if out := fmt.Sprint(s); !strings.Contains(out, "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256") {
		t.Fatalf("%%v = %s, want the suite", out)
	}
}
