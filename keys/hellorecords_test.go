package keys

import (
	"bytes"
	"crypto/tls"
	"errors"
	"net"
	"strings"
	"testing"
)

// clientHelloFromRecords reassembles the ClientHello from a whole stream
// at once.
func clientHelloFromRecords(stream []byte) ([]byte, error) {
	var a helloAssembler
	return a.feed(stream)
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
// error without reading further, and keeps no message buffer.
func TestRecorderRefusesFragmentedHello(t *testing.T) {
	t.Parallel()
	raw, _ := captureHello(t, &tls.Config{ServerName: "localhost"})
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close() })
	go a.Write(records(raw, 1))
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
	if h.asm.msg != nil || h.asm.work > 5*recordHeaderLen+5 {
		t.Errorf("after the refusal: message buffer %d bytes, work %d; want none and at most five records' bytes", cap(h.asm.msg), h.asm.work)
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
		{"ClientHello, then a ChangeCipherSpec record", append(records(msg, maxPlaintextRecord), 20, 3, 3, 0, 1, 1), ""},
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
