package proxy

import (
	"crypto/tls"
	"net"
	"sync/atomic"

	"github.com/tlsbench/tlsbench/internal/ktls"
)

// kernelPolicy is what Options.KTLS allows, decided once at New.
type kernelPolicy struct {
	mode string // KTLSOff, KTLSAuto, KTLSOn
	// unusable says why the kernel cannot do TLS at all (auto then
	// relays in user space and says so once per connection).
	unusable string
}

// kernelLeg is a leg's kernel TLS state.
type kernelLeg struct{}

// kernelTLSAvailable reports whether this kernel can do TLS at all.
func kernelTLSAvailable() error { return ktls.Supported() }

func newKernelPolicy(mode string) kernelPolicy {
	k := kernelPolicy{mode: mode}
	if mode != KTLSOff {
		if err := ktls.Supported(); err != nil {
			k.unusable = err.Error()
		}
	}
	return k
}

// wrap returns the connection a leg's crypto/tls runs over.
func (k kernelPolicy) wrap(l *leg, tcp net.Conn) net.Conn { return tcp }

// clientConfig and serverConfig are the legs' TLS configurations.
func (k kernelPolicy) clientConfig(cfg *tls.Config, l *leg) *tls.Config { return cfg }
func (k kernelPolicy) serverConfig(cfg *tls.Config, l *leg) *tls.Config { return cfg }

// chooseModes sets each leg's relay mode: the kernel's where it can,
// user space otherwise, saying why at debug level.
func (p *Proxy) chooseModes(client, origin *leg) {
	for _, l := range []*leg{client, origin} {
		l.userSpace()
		if p.kernel.mode != KTLSOff {
			p.connLog.Debug("relaying in user space", "leg", l.name, "reason", p.kernel.unusable)
		}
	}
}

// splice moves src to dst inside the kernel.
func (p *Proxy) splice(dst, src *leg, count *atomic.Int64, w *watchdog) error {
	return p.copy(dst, src, count, w)
}
