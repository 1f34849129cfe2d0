package keys

import (
	"crypto/tls"
	"testing"
)

// BenchmarkRecorder measures what the ClientHello recorder costs per
// connection for a ClientHello a crypto/tls client really sent (with its
// post-quantum key share), framed as records of 1 byte, of 100 bytes, or
// as one record, and read the way crypto/tls reads a socket: in chunks of
// 512 bytes (bytes.MinRead). With 1-byte records the recorder refuses the
// ClientHello early, so that case measures how much a refusal costs.
//
//	go test -run '^$' -bench Recorder -benchmem ./keys
func BenchmarkRecorder(b *testing.B) {
	raw, _ := captureHello(b, &tls.Config{ServerName: "localhost"})
	for _, bc := range []struct {
		name string
		frag int
	}{
		{"1B", 1},
		{"100B", 100},
		{"whole", maxPlaintextRecord},
	} {
		b.Run(bc.name, func(b *testing.B) {
			stream := records(raw, bc.frag)
			b.ReportAllocs()
			for b.Loop() {
				h := &helloConn{}
				for rest := stream; len(rest) > 0 && !h.done.Load(); {
					n := min(512, len(rest))
					h.record(rest[:n])
					rest = rest[n:]
				}
			}
		})
	}
}
