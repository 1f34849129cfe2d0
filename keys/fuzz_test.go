package keys

import (
	"crypto/tls"
	"slices"
	"testing"
)

// fuzzSeeds are hand-built and captured ClientHellos.
func fuzzSeeds(f *testing.F) [][]byte {
	seeds := [][]byte{
		buildHello(f, helloSpec{tls13: true, serverName: "localhost", sigAlgs: []tls.SignatureScheme{tls.ECDSAWithP256AndSHA256}, certSigAlgs: []tls.SignatureScheme{tls.PSSWithSHA256}}),
		buildHello(f, helloSpec{sigAlgs: []tls.SignatureScheme{tls.Ed25519}}),
		buildHello(f, helloSpec{noExtensions: true}),
	}
	for _, cfg := range []*tls.Config{{ServerName: "localhost"}, {MaxVersion: tls.VersionTLS12}} {
		raw, _ := captureHello(f, cfg)
		seeds = append(seeds, raw)
	}
	return seeds
}

// FuzzParseClientHello: the ClientHello parser and the allocation-free
// signature_algorithms_cert reader used per handshake never panic, and
// they agree on every message the parser accepts. (On messages it refuses
// the reader may still find the extension: it validates only what it
// reads, since crypto/tls has refused malformed ClientHellos before it
// asks for a certificate.)
func FuzzParseClientHello(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		h, err := ParseClientHello(msg)
		fast, ok := certSchemesOf(msg, nil)
		if err != nil {
			return
		}
		if ok != h.HasCertSignatureSchemes || !slices.Equal(fast, h.CertSignatureSchemes) {
			t.Fatalf("certSchemesOf = %v, %v; ParseClientHello %v, %v", fast, ok, h.CertSignatureSchemes, h.HasCertSignatureSchemes)
		}
		if len(h.Random) != 32 || len(h.SessionID) > 32 || len(h.CipherSuites) == 0 {
			t.Fatalf("accepted impossible fixed fields: %+v", h)
		}
	})
}

// FuzzClientHelloFromRecords: record reassembly never panics, and what it
// returns is one whole ClientHello within the size limit.
func FuzzClientHelloFromRecords(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(records(s, maxPlaintextRecord))
		f.Add(records(s, 7))
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		msg, err := clientHelloFromRecords(stream)
		if err != nil {
			return
		}
		if len(msg) < 4 || msg[0] != handshakeClientHello || len(msg) > maxClientHello ||
			len(msg) != 4+(int(msg[1])<<16|int(msg[2])<<8|int(msg[3])) {
			t.Fatalf("returned a malformed message of %d bytes", len(msg))
		}
	})
}
