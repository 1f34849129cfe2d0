package ktls

import (
	"crypto/tls"
	"fmt"
	"sync"
)

// probeKey is one SupportedFor question.
type probeKey struct {
	version uint16
	cipher  string
	dir     Direction
}

var probes sync.Map // probeKey -> func() error (a sync.OnceValue)

// SupportedFor reports whether this kernel can take a connection of this
// TLS version (tls.VersionTLS12 or tls.VersionTLS13) and cipher
// ("aes128gcm", "aes256gcm", "chacha20poly1305", as CipherOf names them)
// in direction dir: nil, or an error wrapping ErrUnsupported with the
// reason. It probes once per triple and process, on a loopback TCP pair
// with dummy keys, so a caller knows before it touches a connection.
//
// Enable asks it first, which is what keeps --ktls auto safe: without the
// probe, a kernel that accepted TLS_TX and then refused TLS_RX (a crypto
// module missing for decryption, say) would leave the connection half
// offloaded (ErrConnBroken) instead of falling back to user space.
func SupportedFor(version uint16, cipher string, dir Direction) error {
	if dir == 0 || dir&^Both != 0 {
		return fmt.Errorf("ktls: invalid direction %v", dir)
	}
	if err := Supported(); err != nil {
		return err
	}
	s, ok := suiteOf(version, cipher)
	if !ok {
		if cipher == "" {
			cipher = "this cipher suite"
		}
		return fmt.Errorf("%w: %s with %s has no kernel TLS equivalent", ErrUnsupported, tls.VersionName(version), cipher)
	}
	k := probeKey{version, cipher, dir}
	f, ok := probes.Load(k)
	if !ok {
		f, _ = probes.LoadOrStore(k, sync.OnceValue(func() error { return probeFor(version, s, dir) }))
	}
	return f.(func() error)()
}

// ProbeAll asks SupportedFor every version and cipher this package
// knows, both directions at once, so that connections find the answers
// cached: a long-running process (a proxy) pays for the probes at start,
// before anything it measures, instead of at the first connection of
// each kind. It does nothing where the kernel has no TLS at all.
func ProbeAll() {
	if Supported() != nil {
		return
	}
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		for _, c := range []string{CipherAES128GCM, CipherAES256GCM, CipherChaCha20Poly1305} {
			SupportedFor(v, c, Both)
		}
	}
}
