package keys

import (
	"bytes"
	"crypto/tls"
	"fmt"
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

// FuzzClientHelloFromRecords: record reassembly never panics, agrees with
// referenceHello on any stream, complete or cut short, and what it
// returns is one whole ClientHello within the size limit.
func FuzzClientHelloFromRecords(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(records(s, maxPlaintextRecord))
		f.Add(records(s, 7))
		f.Add(append(warningAlert(), versioned(records(s, 1), 0, 0)...))
		f.Add(versioned(records(s, 300), 2, 0))
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		msg, err := clientHelloFromRecords(stream)
		want, wantErr := referenceHello(stream)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || !bytes.Equal(msg, want) {
			t.Fatalf("got %d bytes, %v; referenceHello %d bytes, %v", len(msg), err, len(want), wantErr)
		}
		if err != nil {
			return
		}
		if len(msg) < 4 || msg[0] != handshakeClientHello || len(msg) > maxClientHello ||
			len(msg) != 4+(int(msg[1])<<16|int(msg[2])<<8|int(msg[3])) {
			t.Fatalf("returned a malformed message of %d bytes", len(msg))
		}
	})
}

// FuzzHelloSplits: a message framed as records cut at fuzz-chosen sizes
// (zero-length records and warning alerts included) and read in fuzz-chosen pieces is
// reassembled as referenceHello reassembles the whole stream at once, and
// with work linear in the bytes read: each byte looked at once, the
// message copied once, and growing it copying at most as much again.
func FuzzHelloSplits(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s, []byte{}, []byte{})
		f.Add(s, []byte{0}, []byte{255})
		f.Add(s, []byte{99}, []byte{0, 4, 255})
		f.Add(s, []byte{0, 0, 1, 1, 200}, []byte{6})
		f.Add(s, []byte{255, 100, 255, 255, 1}, []byte{3})
	}
	f.Fuzz(func(t *testing.T, msg, cuts, reads []byte) {
		stream := cutRecords(msg, cuts)
		var a helloAssembler
		var err error
		fed := 0
		for i, rest := 0, stream; len(rest) > 0 && err == nil; i++ {
			n := len(rest)
			if len(reads) > 0 {
				n = min(n, int(reads[i%len(reads)])+1)
			}
			err = a.feed(rest[:n])
			fed += n
			rest = rest[n:]
		}
		out, err := a.result(err)
		if a.work > 3*fed {
			t.Fatalf("%d bytes of work for %d bytes read", a.work, fed)
		}
		want, wantErr := referenceHello(stream)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || !bytes.Equal(out, want) {
			t.Fatalf("got %d bytes, %v; the whole stream at once gives %d bytes, %v", len(out), err, len(want), wantErr)
		}
	})
}

// cutRecords frames msg as handshake records whose payload sizes are
// taken from cuts in turn (one record when cuts is empty); on the first
// pass over cuts a zero is a zero-length record and a 255 a warning alert
// (which crypto/tls drops), after it they are one and 255 bytes.
func cutRecords(msg, cuts []byte) []byte {
	if len(cuts) == 0 {
		return records(msg, maxPlaintextRecord)
	}
	var out []byte
	for i := 0; len(msg) > 0; i++ {
		n := int(cuts[i%len(cuts)])
		if n == 255 && i < len(cuts) {
			out = append(out, warningAlert()...)
			continue
		}
		if n == 0 && i >= len(cuts) {
			n = 1
		}
		n = min(n, len(msg))
		out = append(out, records(msg[:n], max(n, 1))...)
		if n == 0 {
			out = append(out, recordTypeHandshake, 3, 1, 0, 0)
		}
		msg = msg[n:]
	}
	return out
}

// referenceHello is the plain reassembly of the first handshake message
// from a whole stream of records: record by record, alerts skipped (but
// counted), with the limits on record and message size and on
// fragmentation (helloFreeRecords) checked where they can first be, and
// the message appended record by record.
func referenceHello(stream []byte) ([]byte, error) {
	var msg []byte
	payload := 0
	for k := 1; ; k++ {
		if len(stream) < recordHeaderLen {
			return nil, errIncomplete
		}
		typ, length := stream[0], int(stream[3])<<8|int(stream[4])
		switch {
		case typ != recordTypeHandshake && typ != recordTypeAlert:
			return nil, fmt.Errorf("record type %d where a handshake record (22) carrying the ClientHello was expected", typ)
		case stream[1] >= 0x10:
			return nil, fmt.Errorf("record version %d.%d is not TLS", stream[1], stream[2])
		case length > maxPlaintextRecord:
			return nil, fmt.Errorf("record of %d bytes exceeds the %d-byte limit", length, maxPlaintextRecord)
		case k > helloFreeRecords+payload/helloBytesPerRecord:
			return nil, fmt.Errorf("%w: record %d began after only %d bytes of it; beyond %d records, each needs %d bytes before it",
				ErrFragmentedHello, k, payload, helloFreeRecords, helloBytesPerRecord)
		}
		stream = stream[recordHeaderLen:]
		frag := stream[:min(length, len(stream))] // all of it, or what came
		stream = stream[len(frag):]
		if typ == recordTypeAlert { // skipped, as crypto/tls drops warnings
			if len(frag) < length {
				return nil, errIncomplete
			}
			continue
		}
		payload += len(frag)
		msg = append(msg, frag...)
		if len(msg) < 4 {
			if len(frag) < length {
				return nil, errIncomplete
			}
			continue
		}
		if msg[0] != handshakeClientHello {
			return nil, fmt.Errorf("first handshake message has type %d, not ClientHello (1)", msg[0])
		}
		n := 4 + (int(msg[1])<<16 | int(msg[2])<<8 | int(msg[3]))
		if n > maxClientHello {
			return nil, fmt.Errorf("ClientHello of %d bytes exceeds the %d-byte limit", n, maxClientHello)
		}
		if len(msg) >= n {
			return msg[:n], nil
		}
		if len(frag) < length {
			return nil, errIncomplete
		}
	}
}
