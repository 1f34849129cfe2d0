package proxy

import (
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/internal/hostname"
)

// Options configure the proxy. They are plain data so that the same
// configuration can be built in this process or handed to a child
// process over its control channel.
type Options struct {
	// Listen is the TCP address to listen on (DefaultListen).
	Listen string `json:"listen,omitempty"`
	// Allow are the client networks (CIDR) served besides loopback.
	Allow []string `json:"allow,omitempty"`
	// AllowDest are the destinations the proxy dials (default
	// DefaultAllowDest, this machine): networks in CIDR form, single
	// addresses, and host names, which are dialled whatever they resolve
	// to. An address of a name is judged as resolved, and never one that
	// is unspecified, link-local, multicast, broadcast or Teredo.
	AllowDest []string `json:"allow_dest,omitempty"`
	// ConnectPorts are the origin ports CONNECT may reach (default 443).
	ConnectPorts []int `json:"connect_ports,omitempty"`
	// CACert and CAKey are the CA that signs minted certificates. Both
	// empty: the CA in PKIDir, written there on first start.
	CACert string `json:"ca_cert,omitempty"`
	CAKey  string `json:"ca_key,omitempty"`
	PKIDir string `json:"pki_dir,omitempty"`
	// OriginCA verifies origins (default: the system roots);
	// OriginInsecure verifies nothing.
	OriginCA       string `json:"origin_ca,omitempty"`
	OriginInsecure bool   `json:"origin_insecure,omitempty"`
	// Buffer is the relay buffer in bytes (DefaultBuffer); ReadFill
	// keeps reading into it until it is full or nothing more is
	// immediately available, instead of one read per write.
	Buffer   int  `json:"buffer,omitempty"`
	ReadFill bool `json:"read_fill,omitempty"`
	// KTLS is KTLSOff (default), KTLSAuto or KTLSOn.
	KTLS string `json:"ktls,omitempty"`
	// LeafKey is the key type of the proxy's one leaf key: LeafECDSAP256
	// (default) or LeafRSA2048.
	LeafKey string `json:"leaf_key,omitempty"`
	// MintCache keeps up to MintCacheSize minted certificates
	// (DefaultMintCacheSize), least recently used evicted first.
	MintCache     bool `json:"mint_cache"`
	MintCacheSize int  `json:"mint_cache_size,omitempty"`
	// OriginSessions keeps a session cache on the origin leg, so that
	// the proxy resumes its own sessions with the origin; off, every
	// origin handshake is a full one.
	OriginSessions bool `json:"origin_sessions"`
	// MaxConns caps the connections served at once (DefaultMaxConns);
	// more are answered 503.
	MaxConns int `json:"max_conns,omitempty"`
	// RequestTimeout bounds the CONNECT request head, from the accept
	// (DefaultRequestTimeout): a client that sends none holds a MaxConns
	// slot only that long. HandshakeTimeout bounds the origin's dial and
	// both handshakes, from the request (DefaultHandshakeTimeout).
	// IdleTimeout closes a relay in which neither side sent anything for
	// that long (DefaultIdleTimeout); WriteTimeout one in which bytes
	// wait to be sent to a peer that has taken none for that long
	// (DefaultWriteTimeout), however busy the other direction is.
	RequestTimeout   time.Duration `json:"request_timeout,omitempty"`
	HandshakeTimeout time.Duration `json:"handshake_timeout,omitempty"`
	IdleTimeout      time.Duration `json:"idle_timeout,omitempty"`
	WriteTimeout     time.Duration `json:"write_timeout,omitempty"`
	// LogLevel is error, warn, info (default) or debug.
	LogLevel string `json:"log_level,omitempty"`
}

// Values of Options fields.
const (
	KTLSOff  = "off"
	KTLSAuto = "auto"
	KTLSOn   = "on"

	LeafECDSAP256 = "ecdsa-p256"
	LeafRSA2048   = "rsa-2048"
)

// Defaults of Options fields.
const (
	DefaultListen           = "127.0.0.1:3129"
	DefaultBuffer           = 16 * 1024
	DefaultMintCacheSize    = 1024
	DefaultMaxConns         = 1024
	DefaultRequestTimeout   = 3 * time.Second
	DefaultHandshakeTimeout = 10 * time.Second
	DefaultIdleTimeout      = 60 * time.Second
	DefaultWriteTimeout     = 30 * time.Second
)

// Bounds of the relay buffer: one byte would be absurd, and a buffer per
// direction per connection beyond 16 MiB would let a few connections
// exhaust memory.
const (
	MinBuffer = 512
	MaxBuffer = 16 << 20
)

// MaxMintCacheSize bounds the mint cache: a million certificates are some
// GiB of memory already.
const MaxMintCacheSize = 1_000_000

// withDefaults fills in the zero fields.
func (o Options) withDefaults() Options {
	if o.Listen == "" {
		o.Listen = DefaultListen
	}
	if len(o.ConnectPorts) == 0 {
		o.ConnectPorts = []int{443}
	}
	if o.Buffer == 0 {
		o.Buffer = DefaultBuffer
	}
	if o.KTLS == "" {
		o.KTLS = KTLSOff
	}
	if o.LeafKey == "" {
		o.LeafKey = LeafECDSAP256
	}
	if o.MintCacheSize == 0 {
		o.MintCacheSize = DefaultMintCacheSize
	}
	if o.MaxConns == 0 {
		o.MaxConns = DefaultMaxConns
	}
	if o.HandshakeTimeout == 0 {
		o.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.WriteTimeout == 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.LogLevel == "" {
		o.LogLevel = "info"
	}
	return o
}

// Validate checks the options that need no file access (and, with KTLS
// on, that the kernel has TLS). Its errors are *field.Error naming the
// field.
func (o Options) Validate() error {
	o = o.withDefaults()
	if _, _, err := net.SplitHostPort(o.Listen); err != nil {
		return field.Errorf("Listen", hostname.Quote(o.Listen), "want host:port, e.g. %s", DefaultListen)
	}
	if err := hostname.CheckHostPort(o.Listen); err != nil {
		return field.Errorf("Listen", nil, "the host %v", err)
	}
	if _, err := parseAllow(o.Allow); err != nil {
		return err
	}
	if _, err := parseDest(o.AllowDest); err != nil {
		return err
	}
	for _, p := range o.ConnectPorts {
		if p < 1 || p > 65535 {
			return field.Errorf("ConnectPorts", p, "not a port (1 to 65535)")
		}
	}
	if (o.CACert == "") != (o.CAKey == "") {
		return field.Errorf("CACert", nil, "%s and %s go together: give both, or neither for a CA the proxy writes itself", field.Ref("CACert"), field.Ref("CAKey"))
	}
	if o.CACert != "" && o.PKIDir != "" {
		return field.Errorf("PKIDir", o.PKIDir, "the proxy writes its CA there only without %s and %s: give one or the other", field.Ref("CACert"), field.Ref("CAKey"))
	}
	if o.OriginInsecure && o.OriginCA != "" {
		return field.Errorf("OriginInsecure", nil, "%s verifies nothing, %s verifies with a CA: give one", field.Ref("OriginInsecure"), field.Ref("OriginCA"))
	}
	if o.Buffer < MinBuffer || o.Buffer > MaxBuffer {
		return field.Errorf("Buffer", o.Buffer, "must be from %d bytes to %d MiB, e.g. 16k", MinBuffer, MaxBuffer>>20)
	}
	if err := o.validateChoices(); err != nil {
		return err
	}
	if o.MintCacheSize < 1 {
		return field.Errorf("MintCacheSize", o.MintCacheSize, "must be at least 1")
	}
	if o.MintCacheSize > MaxMintCacheSize {
		return field.Errorf("MintCacheSize", o.MintCacheSize, "must be at most %d: each certificate kept holds a few KiB", MaxMintCacheSize)
	}
	if o.MaxConns < 1 {
		return field.Errorf("MaxConns", o.MaxConns, "must be at least 1")
	}
	if err := o.validateTimeouts(); err != nil {
		return err
	}
	if o.KTLS == KTLSOn {
		if err := kernelTLSAvailable(); err != nil {
			return field.Errorf("KTLS", o.KTLS, "this kernel cannot do TLS (%v); use off or auto", err)
		}
	}
	return nil
}

// MinTimeout is the least of each timeout: the relay's watchdog ticks
// at a fraction of the idle and write timeouts, and a timeout of a few
// nanoseconds would have it tick without pause, a core spent on one
// tunnel.
const MinTimeout = 100 * time.Millisecond

// validateTimeouts checks the timeouts, zero being the default.
func (o Options) validateTimeouts() error {
	for _, t := range []struct {
		name, eg string // eg: the default, as a user writes it
		d        time.Duration
	}{
		{"RequestTimeout", "3s", o.RequestTimeout},
		{"HandshakeTimeout", "10s", o.HandshakeTimeout},
		{"IdleTimeout", "60s", o.IdleTimeout},
		{"WriteTimeout", "30s", o.WriteTimeout},
	} {
		if t.d < 0 {
			return field.Errorf(t.name, t.d, "must be positive, e.g. %s", t.eg)
		}
		if t.d < MinTimeout {
			return field.Errorf(t.name, t.d, "must be at least %v, e.g. %s", MinTimeout, t.eg)
		}
	}
	return nil
}

// validateChoices checks the fields that take one of a few words.
func (o Options) validateChoices() error {
	switch o.KTLS {
	case KTLSOff, KTLSAuto, KTLSOn:
	default:
		return field.Errorf("KTLS", strconv.Quote(o.KTLS), "must be off, auto or on")
	}
	switch o.LeafKey {
	case LeafECDSAP256, LeafRSA2048:
	default:
		return field.Errorf("LeafKey", strconv.Quote(o.LeafKey), "must be %s or %s", LeafECDSAP256, LeafRSA2048)
	}
	if _, err := parseLevel(o.LogLevel); err != nil {
		return field.Errorf("LogLevel", strconv.Quote(o.LogLevel), "must be error, warn, info or debug")
	}
	return nil
}

// parseAllow reads the allowed client networks.
func parseAllow(allow []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, a := range allow {
		p, err := netip.ParsePrefix(strings.TrimSpace(a))
		if err != nil {
			return nil, field.Errorf("Allow", strconv.Quote(a), "not a network in CIDR form, e.g. 10.0.0.0/8 or 192.0.2.7/32")
		}
		out = append(out, p.Masked())
	}
	return out, nil
}
