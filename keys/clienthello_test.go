package keys

import (
	"bytes"
	"crypto/tls"
	"errors"
	"net"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseClientHello(t *testing.T) {
	t.Parallel()
	ecdsaOnly := []tls.SignatureScheme{tls.ECDSAWithP256AndSHA256}
	pss := []tls.SignatureScheme{tls.PSSWithSHA256, tls.PSSWithSHA384}
	tests := []struct {
		name      string
		spec      helloSpec
		sni       string
		sig, cert []tls.SignatureScheme
		hasCert   bool
		versions  []uint16
	}{
		{name: "tls1.3 with both lists", spec: helloSpec{tls13: true, serverName: "localhost", sigAlgs: ecdsaOnly, certSigAlgs: pss},
			sni: "localhost", sig: ecdsaOnly, cert: pss, hasCert: true, versions: []uint16{tls.VersionTLS13}},
		{name: "tls1.2 without signature_algorithms_cert", spec: helloSpec{sigAlgs: pss},
			sig: pss},
		{name: "no signature_algorithms", spec: helloSpec{}},
		{name: "no extensions at all", spec: helloSpec{noExtensions: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := ParseClientHello(buildHello(t, tt.spec))
			if err != nil {
				t.Fatal(err)
			}
			if h.ServerName != tt.sni || !slices.Equal(h.SignatureSchemes, tt.sig) || !slices.Equal(h.CertSignatureSchemes, tt.cert) ||
				h.HasCertSignatureSchemes != tt.hasCert || !slices.Equal(h.SupportedVersions, tt.versions) {
				t.Errorf("got SNI %q sig %v cert %v (present %v) versions %v", h.ServerName, h.SignatureSchemes, h.CertSignatureSchemes, h.HasCertSignatureSchemes, h.SupportedVersions)
			}
			if h.Version != tls.VersionTLS12 || len(h.Random) != 32 || len(h.CipherSuites) == 0 {
				t.Errorf("fixed fields: version %x, random %d bytes, %d suites", h.Version, len(h.Random), len(h.CipherSuites))
			}
		})
	}
}

// TestParseClientHelloErrors: malformed messages are refused with an
// error, never a panic or a partial result.
func TestParseClientHelloErrors(t *testing.T) {
	t.Parallel()
	valid := buildHello(t, helloSpec{tls13: true, serverName: "localhost", sigAlgs: []tls.SignatureScheme{tls.Ed25519}})
	ext := func(exts ...[]byte) []byte { // an extensions block from raw extensions
		body := slices.Concat(exts...)
		return append([]byte{byte(len(body) >> 8), byte(len(body))}, body...)
	}
	sigalgs := func(list ...byte) []byte { // signature_algorithms with a raw list body
		return append([]byte{0, 13, 0, byte(len(list) + 2), 0, byte(len(list))}, list...)
	}
	tests := []struct {
		name string
		msg  []byte
		want string
	}{
		{"empty", nil, "not a ClientHello"},
		{"ServerHello type", append([]byte{2}, valid[1:]...), "not a ClientHello"},
		{"length too long", append(slices.Clone(valid[:3]), valid[3]+1), "handshake length"},
		{"trailing byte", append(slices.Clone(valid), 0), "handshake length"},
		{"truncated", valid[:40], "handshake length"},
		{"duplicate extension", buildHello(t, helloSpec{raw: ext(sigalgs(4, 3), sigalgs(8, 7))}), "appears twice"},
		{"empty signature list", buildHello(t, helloSpec{raw: ext(sigalgs())}), "extension 13"},
		{"odd signature list", buildHello(t, helloSpec{raw: ext(sigalgs(4, 3, 8))}), "extension 13"},
		{"extension overruns block", buildHello(t, helloSpec{raw: []byte{0, 4, 0, 13, 0, 9}}), "extension header"},
		{"extensions block length", buildHello(t, helloSpec{raw: []byte{0, 9, 0, 23, 0, 0}}), "extensions length"},
		{"two host names", buildHello(t, helloSpec{raw: ext([]byte{0, 0, 0, 12, 0, 10, 0, 0, 2, 'a', 'b', 0, 0, 2, 'c', 'd'})}), "extension 0"},
		{"empty host name", buildHello(t, helloSpec{raw: ext([]byte{0, 0, 0, 5, 0, 3, 0, 0, 0})}), "extension 0"},
		{"supported_versions odd", buildHello(t, helloSpec{raw: ext([]byte{0, 43, 0, 2, 1, 3})}), "extension 43"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := ParseClientHello(tt.msg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ParseClientHello = %+v, %v; want an error containing %q", h, err, tt.want)
			}
			if got, ok := certSchemesOf(tt.msg, nil); ok {
				t.Errorf("certSchemesOf found %v in a message without signature_algorithms_cert", got)
			}
		})
	}
}

// TestParseCapturedClientHellos parses ClientHellos that crypto/tls
// clients really sent, recorded by RecordClientHello on a real server, and
// checks every field against what crypto/tls's own parser reported in
// ClientHelloInfo for the same message.
func TestParseCapturedClientHellos(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  *tls.Config
	}{
		{"tls1.3 default", &tls.Config{ServerName: "localhost"}},
		{"tls1.2 only", &tls.Config{ServerName: "example.test", MaxVersion: tls.VersionTLS12}},
		{"tls1.3 only, ip address (no SNI)", &tls.Config{MinVersion: tls.VersionTLS13}},
		{"ml-kem key share", &tls.Config{ServerName: "localhost", CurvePreferences: []tls.CurveID{tls.X25519MLKEM768}}},
		{"alpn and session ticket", &tls.Config{ServerName: "localhost", NextProtos: []string{"h2", "http/1.1"}, ClientSessionCache: tls.NewLRUClientSessionCache(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, info := captureHello(t, tt.cfg)
			h, err := ParseClientHello(raw)
			if err != nil {
				t.Fatal(err)
			}
			if h.ServerName != info.ServerName {
				t.Errorf("ServerName %q, crypto/tls %q", h.ServerName, info.ServerName)
			}
			if !slices.Equal(h.SignatureSchemes, info.SignatureSchemes) {
				t.Errorf("SignatureSchemes %v, crypto/tls %v", h.SignatureSchemes, info.SignatureSchemes)
			}
			if !slices.Equal(h.CipherSuites, info.CipherSuites) {
				t.Errorf("CipherSuites %v, crypto/tls %v", h.CipherSuites, info.CipherSuites)
			}
			if !slices.Equal(h.Extensions, info.Extensions) {
				t.Errorf("Extensions %v, crypto/tls %v", h.Extensions, info.Extensions)
			}
			if len(h.SupportedVersions) > 0 && !slices.Equal(h.SupportedVersions, info.SupportedVersions) {
				t.Errorf("SupportedVersions %v, crypto/tls %v", h.SupportedVersions, info.SupportedVersions)
			}
			// Go clients send signature_algorithms_cert; it must be found,
			// and the allocation-free path must agree.
			if !h.HasCertSignatureSchemes || len(h.CertSignatureSchemes) == 0 {
				t.Fatalf("no signature_algorithms_cert in a Go ClientHello (extensions %v)", h.Extensions)
			}
			got, ok := certSchemesOf(raw, nil)
			if !ok || !slices.Equal(got, h.CertSignatureSchemes) {
				t.Errorf("certSchemesOf = %v, %v; ParseClientHello %v", got, ok, h.CertSignatureSchemes)
			}
		})
	}
}

// captureHello has a crypto/tls client with cfg send its ClientHello to a
// server that records it and then refuses the handshake. It returns the
// raw message and what crypto/tls parsed from it.
func captureHello(t testing.TB, cfg *tls.Config) ([]byte, tls.ClientHelloInfo) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	type capture struct {
		raw  []byte
		info tls.ClientHelloInfo
		err  error
	}
	got := make(chan capture, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- capture{err: err}
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		var cp capture
		srv := tls.Server(RecordClientHello(c), &tls.Config{GetConfigForClient: func(chi *tls.ClientHelloInfo) (*tls.Config, error) {
			cp.info = *chi
			cp.raw, cp.err = helloConnOf(chi.Conn).clientHello()
			return nil, errors.New("captured")
		}})
		srv.Handshake()
		got <- cp
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	cfg = cfg.Clone()
	cfg.InsecureSkipVerify = true
	tls.Client(c, cfg).Handshake()
	cp := <-got
	if cp.err != nil {
		t.Fatal(cp.err)
	}
	return cp.raw, cp.info
}

func TestClientHelloFromRecords(t *testing.T) {
	t.Parallel()
	msg := buildHello(t, helloSpec{tls13: true, serverName: "localhost", sigAlgs: []tls.SignatureScheme{tls.Ed25519}})
	tests := []struct {
		name   string
		stream []byte
		want   string // error substring; "" for success
	}{
		{"one record", records(msg, maxPlaintextRecord), ""},
		{"one record, then more bytes", append(records(msg, maxPlaintextRecord), 20, 3, 3, 0, 1, 1), ""},
		{"four records, handshake header split", slices.Concat(records(msg[:1], 1), records(msg[1:3], 2), records(msg[3:5], 2), records(msg[5:], maxPlaintextRecord)), ""},
		{"64-byte records", records(msg, helloBytesPerRecord), ""},
		{"zero-length records first", slices.Concat([]byte{22, 3, 1, 0, 0, 22, 3, 1, 0, 0}, records(msg, maxPlaintextRecord)), ""},
		{"another handshake message after it in its record", records(append(slices.Clone(msg), 20, 0, 0, 1, 9), maxPlaintextRecord), ""},
		{"one byte per record", records(msg, 1), "too many small records"},
		{"three-byte records", records(msg, 3), "record 5 began after only 12 bytes"},
		{"five zero-length records", slices.Concat(bytes.Repeat([]byte{22, 3, 1, 0, 0}, 5), records(msg, maxPlaintextRecord)), "too many small records"},
		{"incomplete header", []byte{22, 3}, "incomplete"},
		{"incomplete record", records(msg, maxPlaintextRecord)[:50], "incomplete"},
		{"incomplete across records", records(msg, 50)[:150], "incomplete"},
		{"http request", []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), "record type 71"},
		{"record version 2.0, which crypto/tls takes before the ClientHello", versioned(records(msg, maxPlaintextRecord), 2, 0), ""},
		{"record version 16.0", []byte{0x16, 16, 0, 0, 1, 1}, "not TLS"},
		{"a warning alert first", append(warningAlert(), records(msg, maxPlaintextRecord)...), ""},
		{"oversized record", []byte{22, 3, 1, 0x40, 0x01}, "exceeds"},
		{"not a ClientHello", records(append([]byte{2}, msg[1:]...), maxPlaintextRecord), "not ClientHello"},
		{"oversized ClientHello", records([]byte{1, 2, 0, 0}, 16), "exceeds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := clientHelloFromRecords(tt.stream)
			if tt.want == "" {
				if err != nil || string(got) != string(msg) {
					t.Fatalf("got %d bytes, %v; want the %d-byte message", len(got), err, len(msg))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestRecorderByteByByte: a ClientHello that arrives one byte per Read
// (TCP may split it anywhere) is still recorded whole, and the recorder
// stops copying once it has it.
func TestRecorderByteByByte(t *testing.T) {
	t.Parallel()
	msg := buildHello(t, helloSpec{tls13: true, sigAlgs: []tls.SignatureScheme{tls.Ed25519}, certSigAlgs: []tls.SignatureScheme{tls.Ed25519}})
	stream := append(records(msg, 200), []byte("application bytes after the hello")...)
	a, b := net.Pipe()
	go func() {
		for i := range stream {
			a.Write(stream[i : i+1])
		}
		a.Close()
	}()
	h := RecordClientHello(b).(*helloConn)
	buf := make([]byte, 1)
	for {
		if _, err := h.Read(buf); err != nil {
			break
		}
	}
	got, err := h.clientHello()
	if err != nil || string(got) != string(msg) {
		t.Fatalf("recorded %d bytes, %v; want %d", len(got), err, len(msg))
	}
	// Each byte of the records is looked at once and the message copied
	// once; after the ClientHello only the next record's header is.
	if limit := len(records(msg, 200)) + len(msg) + recordHeaderLen; h.asm.work > limit {
		t.Errorf("recorder did %d bytes of work, more than the ClientHello's records and one copy (%d)", h.asm.work, limit)
	}
	if RecordClientHello(h) != h {
		t.Error("RecordClientHello wrapped a recorder again")
	}
}
