package sessionid_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"testing"

	"github.com/tlsbench/tlsbench/client/sessionid"
	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/internal/testpki"
)

// relay forwards one connection to target, letting edit change the
// server's records (after parsing them out of the stream) and the
// client's first write. It returns the address clients dial.
func relay(t *testing.T, target string, editClientHello func([]byte), editServerRecord func(i int, rec []byte)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		s, err := net.Dial("tcp", target)
		if err != nil {
			return
		}
		defer s.Close()
		go func() {
			buf := make([]byte, 64<<10)
			for first := true; ; first = false {
				n, err := c.Read(buf)
				if n > 0 && first && editClientHello != nil {
					editClientHello(buf[:n])
				}
				if n > 0 {
					s.Write(buf[:n])
				}
				if err != nil {
					s.Close()
					return
				}
			}
		}()
		for i := 0; ; i++ {
			var hdr [5]byte
			if _, err := io.ReadFull(s, hdr[:]); err != nil {
				return
			}
			rec := make([]byte, 5+(int(hdr[3])<<8|int(hdr[4])))
			copy(rec, hdr[:])
			if _, err := io.ReadFull(s, rec[5:]); err != nil {
				return
			}
			editServerRecord(i, rec)
			if _, err := c.Write(rec); err != nil {
				return
			}
		}
	}()
	return ln.Addr().String()
}

// TestOpenSSLTampered alters a resumption with openssl s_server on the
// way: a flipped byte of the server's encrypted Finished is a bad record
// MAC; a changed ClientHello (one signature algorithm) leaves the keys
// alone but the server's Finished covers another transcript, which the
// client must refuse. Neither gives a connection.
func TestOpenSSLTampered(t *testing.T) {
	t.Parallel()
	peers.Require(t, "openssl")
	ca, _, files := testpki.ServerFiles(t)
	srv := peers.OpenSSL(t, "-tls1_2", "-no_ticket", "-www", "-cert", files.Cert, "-key", files.Key)
	cfg := &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost"}
	afterCCS := func(flip bool) func(int, []byte) {
		seen := false
		return func(_ int, rec []byte) {
			if flip && seen {
				rec[len(rec)-3] ^= 0x40
				flip = false
			}
			seen = seen || rec[0] == 20
		}
	}
	for _, tc := range []struct {
		name   string
		hello  func([]byte)
		server func(int, []byte)
		want   error
	}{
		{"finished record flipped", nil, afterCCS(true), sessionid.ErrBadRecordMAC},
		{"client hello changed", func(b []byte) {
			// rsa_pkcs1_sha256 becomes an algorithm servers skip.
			i := bytes.Index(b, []byte{4, 1, 5, 1, 6, 1})
			if i < 0 {
				t.Error("no signature algorithms in the ClientHello")
				return
			}
			b[i+1] = 2
		}, afterCCS(false), sessionid.ErrBadFinished},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// OpenSSL drops a session from its cache when a handshake
			// resuming it fails: each case has its own.
			s, _ := fullHandshake(t, srv.Addr, cfg)
			addr := relay(t, srv.Addr, tc.hello, tc.server)
			ctx, cancel := context.WithTimeout(context.Background(), peerTimeout)
			defer cancel()
			c, err := sessionid.Resume(ctx, dial(t, addr), s)
			if c != nil || !errors.Is(err, tc.want) {
				t.Fatalf("Resume = %v, %v; want no connection and %v", c, err, tc.want)
			}
		})
	}
	// Unaltered, the relay passes a resumption.
	s, _ := fullHandshake(t, srv.Addr, cfg)
	addr := relay(t, srv.Addr, nil, afterCCS(false))
	if _, page := resume(t, addr, s); !bytes.Contains([]byte(page), []byte("Reused, TLSv1.2")) {
		t.Fatalf("the server's page does not say Reused:\n%s", page)
	}
}
