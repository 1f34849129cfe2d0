package keys

import (
	"bytes"
	"crypto/tls"
	"errors"
	"net"
	"slices"
	"strings"
	"testing"
)

// clientHelloFromRecords reassembles the ClientHello from a whole stream
// at once.
func clientHelloFromRecords(stream []byte) ([]byte, error) {
	var a helloAssembler
	return a.result(a.feed(stream))
}

// paddedHello is a ClientHello of about pad bytes more than the smallest:
// its one extension is padding (RFC 7685).
func paddedHello(t testing.TB, pad int) []byte {
	t.Helper()
	ext := append([]byte{0, 21, byte(pad >> 8), byte(pad)}, make([]byte, pad)...)
	return buildHello(t, helloSpec{raw: append([]byte{byte(len(ext) >> 8), byte(len(ext))}, ext...)})
}

// TestLargeClientHelloRecords: a ClientHello near the size limit is
// accepted in full records (crypto/tls sends it in four) and in the
// smallest records OpenSSL sends (512 bytes), and refused in records just
// under the 64 bytes each record past the fourth must bring.
func TestLargeClientHelloRecords(t *testing.T) {
	t.Parallel()
	msg := paddedHello(t, 60000)
	tests := []struct {
		name string
		frag int
		want string
	}{
		{"16 KiB records", maxPlaintextRecord, ""},
		{"512-byte records", 512, ""},
		{"64-byte records", helloBytesPerRecord, ""},
		{"63-byte records", helloBytesPerRecord - 1, "record 194 began"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := clientHelloFromRecords(records(msg, tt.frag))
			if tt.want == "" {
				if err != nil || !bytes.Equal(got, msg) {
					t.Fatalf("got %d bytes, %v; want the %d-byte message", len(got), err, len(msg))
				}
				return
			}
			if !errors.Is(err, ErrFragmentedHello) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want ErrFragmentedHello containing %q", err, tt.want)
			}
		})
	}
}

// TestRecorderRefusesFragmentedHello: a ClientHello sent as 1-byte
// records ends the reading at the fifth record: Read returns
// ErrFragmentedHello, hands none of the bytes on, keeps returning the
// error without reading further, and keeps no message buffer. So too
// when the records carry a version crypto/tls accepts before the
// ClientHello although it is not 3.x, and when a warning alert, which
// crypto/tls drops, comes first.
func TestRecorderRefusesFragmentedHello(t *testing.T) {
	t.Parallel()
	raw, _ := captureHello(t, &tls.Config{ServerName: "localhost"})
	tests := []struct {
		name   string
		stream []byte
	}{
		{"1-byte records", records(raw, 1)},
		{"1-byte records of version 0.0", versioned(records(raw, 1), 0, 0)},
		{"1-byte records of version 2.0", versioned(records(raw, 1), 2, 0)},
		{"a warning alert, then 1-byte records", append(warningAlert(), records(raw, 1)...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := net.Pipe()
			t.Cleanup(func() { a.Close() })
			go a.Write(tt.stream)
			h := RecordClientHello(b).(*helloConn)
			buf := make([]byte, 512)
			for i := range 2 {
				n, err := h.Read(buf)
				if n != 0 || !errors.Is(err, ErrFragmentedHello) {
					t.Fatalf("Read %d = %d bytes, %v; want 0 and ErrFragmentedHello", i, n, err)
				}
			}
			if _, err := h.clientHello(); !errors.Is(err, ErrFragmentedHello) {
				t.Errorf("clientHello error %v, want ErrFragmentedHello", err)
			}
			if h.asm.msg != nil || h.asm.work > len(firstRecords(tt.stream, helloFreeRecords+1)) {
				t.Errorf("after the refusal: message buffer %d bytes, work %d; want none and at most five records' bytes", cap(h.asm.msg), h.asm.work)
			}
		})
	}
}

// firstRecords is the first n records of stream.
func firstRecords(stream []byte, n int) []byte {
	end := 0
	for range n {
		end += recordHeaderLen + (int(stream[end+3])<<8 | int(stream[end+4]))
	}
	return stream[:end]
}

// TestHelloRecordsLikeCryptoTLS: the records are read as crypto/tls
// reads them before the ClientHello: any record version below 16.0 is
// taken, and a warning alert is skipped but counts among the records, so
// that alerts cannot stand between small records for free.
func TestHelloRecordsLikeCryptoTLS(t *testing.T) {
	t.Parallel()
	msg := paddedHello(t, 2000)
	alerts := func(stream []byte, n int) []byte { // n alerts after each record
		var out []byte
		for len(stream) > 0 {
			rec := firstRecords(stream, 1)
			out = append(out, rec...)
			stream = stream[len(rec):]
			for range n {
				out = append(out, warningAlert()...)
			}
		}
		return out
	}
	tests := []struct {
		name   string
		stream []byte
		want   string // "" for the message
	}{
		{"version 0.0", versioned(records(msg, maxPlaintextRecord), 0, 0), ""},
		{"version 15.255", versioned(records(msg, 512), 15, 255), ""},
		{"version 16.0", versioned(records(msg, maxPlaintextRecord), 16, 0), "record version 16.0 is not TLS"},
		{"warning alerts, then the ClientHello", append(append(warningAlert(), warningAlert()...), records(msg, maxPlaintextRecord)...), ""},
		{"an alert after each 512-byte record", alerts(records(msg, 512), 1), ""},
		{"16 alerts after each 64-byte record", alerts(records(msg, helloBytesPerRecord), 16), "record 6 began after only 64 bytes"},
		{"a change_cipher_spec record first", append([]byte{20, 3, 1, 0, 1, 1}, records(msg, maxPlaintextRecord)...), "record type 20"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := clientHelloFromRecords(tt.stream)
			if tt.want == "" {
				if err != nil || !bytes.Equal(got, msg) {
					t.Fatalf("got %d bytes, %v; want the %d-byte message", len(got), err, len(msg))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %d bytes, %v; want an error containing %q", len(got), err, tt.want)
			}
		})
	}
}

// TestRecorderPassesStreams: what the recorder reads reaches crypto/tls
// unchanged, whether the stream is a ClientHello followed by more bytes
// or not TLS at all; the recorder is done with it either way.
func TestRecorderPassesStreams(t *testing.T) {
	t.Parallel()
	msg := buildHello(t, helloSpec{tls13: true, sigAlgs: []tls.SignatureScheme{tls.Ed25519}})
	tests := []struct {
		name   string
		stream []byte
		want   string // the recorder's error; "" when it has the message
	}{
		{"ClientHello, then change_cipher_spec and application_data records", append(records(msg, maxPlaintextRecord), 20, 3, 3, 0, 1, 1, 23, 3, 3, 0, 2, 7, 7), ""},
		{"http request", []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), "record type 71"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := net.Pipe()
			go func() { a.Write(tt.stream); a.Close() }()
			h := RecordClientHello(b).(*helloConn)
			var got []byte
			buf := make([]byte, 7)
			for {
				n, err := h.Read(buf)
				got = append(got, buf[:n]...)
				if err != nil {
					break
				}
			}
			if !bytes.Equal(got, tt.stream) || !h.done.Load() {
				t.Fatalf("read %q (done %v), want %q", got, h.done.Load(), tt.stream)
			}
			rec, err := h.clientHello()
			if tt.want == "" && (err != nil || !bytes.Equal(rec, msg)) || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("recorded %d bytes, %v; want %q", len(rec), err, tt.want)
			}
		})
	}
}

// TestRecordBudgetAfterHello: the record budget goes on over the client's
// plaintext records after the ClientHello (a second ClientHello after a
// HelloRetryRequest, a TLS 1.2 second flight, change_cipher_spec and alert
// records among them) and over a first message that is not a ClientHello,
// which crypto/tls reads whole; it ends at the first application_data
// record. The ClientHello is recorded either way, and the largest one
// crypto/tls takes (a 64 KiB body) too.
func TestRecordBudgetAfterHello(t *testing.T) {
	t.Parallel()
	msg := paddedHello(t, 200) // about 300 bytes: 8 records free after it
	hello := records(msg, maxPlaintextRecord)
	small := versioned(records(bytes.Repeat([]byte{16}, 50), 1), 3, 3)
	flight := versioned(records(bytes.Repeat([]byte{16}, 600), 200), 3, 3)
	ccs := []byte{recordTypeChangeCipherSpec, 3, 3, 0, 1, 1}
	appData := []byte{recordTypeApplicationData, 3, 3, 0, 2, 9, 9}
	huge := func(n int) []byte {
		return append([]byte{handshakeClientHello, byte(n >> 16), byte(n >> 8), byte(n)}, make([]byte, n)...)
	}
	tests := []struct {
		name    string
		stream  []byte
		want    error  // feed's: nil, errUnwatched or ErrFragmentedHello
		helloOK bool   // the ClientHello is recorded
		why     string // else why not
	}{
		{"1-byte records after the hello", slices.Concat(hello, small), ErrFragmentedHello, true, ""},
		{"change_cipher_spec, then 1-byte records", slices.Concat(hello, ccs, small), ErrFragmentedHello, true, ""},
		{"warning alerts after the hello", slices.Concat(hello, bytes.Repeat(warningAlert(), 10)), ErrFragmentedHello, true, ""},
		{"a second flight in 200-byte records", slices.Concat(hello, flight, ccs, flight), nil, true, ""},
		{"application_data, then 1-byte records", slices.Concat(hello, ccs, appData, small), errUnwatched, true, ""},
		{"another record type after the hello", slices.Concat(hello, []byte{24, 3, 3, 0, 1, 0}, small), errUnwatched, true, ""},
		{"a first message of type 2 in 1-byte records", records(append([]byte{2}, msg[1:]...), 1), ErrFragmentedHello, false, "not ClientHello"},
		{"a ClientHello of 65,536 bytes in 1-byte records", records(huge(1<<16), 1), ErrFragmentedHello, false, "too many small records"},
		{"a ClientHello of 65,536 bytes in full records", records(huge(1<<16), maxPlaintextRecord), nil, true, ""},
		{"a ClientHello of 65,537 bytes", records(huge(1<<16+1), maxPlaintextRecord), nil, false, "exceeds the 65540-byte limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var a helloAssembler
			err := a.feed(tt.stream)
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("feed: %v, want %v", err, tt.want)
			}
			got, herr := a.result(err)
			switch {
			case tt.helloOK && (herr != nil || len(got) < 4 || len(got) != 4+(int(got[1])<<16|int(got[2])<<8|int(got[3]))):
				t.Errorf("recorded %d bytes, %v; want the ClientHello", len(got), herr)
			case !tt.helloOK && (herr == nil || !strings.Contains(herr.Error(), tt.why)):
				t.Errorf("recorded %d bytes, %v; want an error containing %q", len(got), herr, tt.why)
			}
		})
	}
}

// TestRecorderPassesHandshakes: real handshakes through the recorder,
// whose plaintext records go on after the first ClientHello, pass its
// record budget: TLS 1.3 through a HelloRetryRequest (the server takes
// only P-256, the client's key share is X25519's), TLS 1.2 with a client
// certificate, and their resumptions (the TLS 1.3 one through a
// HelloRetryRequest again).
func TestRecorderPassesHandshakes(t *testing.T) {
	t.Parallel()
	p := newTestPKI(t)
	client, err := p.root.IssueClient("client")
	if err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, mustNew(t, p.sources(idECDSA)), func(c *tls.Config) {
		c.CurvePreferences = []tls.CurveID{tls.CurveP256}
		c.ClientAuth = tls.RequireAndVerifyClientCert
		c.ClientCAs = p.pool
	})
	for _, version := range []uint16{tls.VersionTLS13, tls.VersionTLS12} {
		cfg := &tls.Config{RootCAs: p.pool, ServerName: "localhost", MinVersion: version, MaxVersion: version,
			CurvePreferences: []tls.CurveID{tls.X25519, tls.CurveP256}, Certificates: []tls.Certificate{client.TLSCertificate()},
			ClientSessionCache: tls.NewLRUClientSessionCache(1)}
		for _, resume := range []bool{false, true} {
			st, err := dial(t, srv.addr, cfg)
			res := srv.result(t)
			if err != nil || res.err != nil {
				t.Fatalf("TLS %x (resuming %v): client %v, server %v", version, resume, err, res.err)
			}
			hrr := version == tls.VersionTLS13 // the resumption too: its key share is X25519's again
			if st.DidResume != resume || st.HelloRetryRequest != hrr {
				t.Errorf("TLS %x: resumed %v, HelloRetryRequest %v; want %v, %v", version, st.DidResume, st.HelloRetryRequest, resume, hrr)
			}
		}
	}
}
