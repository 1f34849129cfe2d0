package plan

import (
	"crypto/tls"
	"strconv"

	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/pki"
)

// Case is one point of the axes: a value of every axis of its mode.
type Case struct {
	Name    string
	Mode    string // ModeHandshake or ModeThroughput
	Version uint16
	Resume  bool
	// ResumeRatio, when the plan gives shares, is the case's share of
	// connections that offer a session (Resume is then set for any
	// share above 0); nil otherwise.
	ResumeRatio *float64
	Mutual      bool
	KeyType     pki.KeyType // "": an external target's own certificate
	KeyCache    bool
	Group       tls.CurveID // 0: Go's defaults
	Cipher      string      // "": Go's defaults (handshake cases)
	Transport   string
	Buffer      int
	Direction   string
	KTLS        ktls.Mode
	Concurrency int
	// Rate, in an open-loop case, is its starts per second (Concurrency
	// is then 0), and Arrival the schedule's shape.
	Rate    float64
	Arrival string
	// File says the server sends a file (--source) instead of a stream.
	File bool
	// Proxy is the proxy the client connects through: ProxyBuiltin, a
	// URL, or "" (none). Request is the throughput wire (loadgen's
	// "bulk" or "http"; "" is bulk). ReadFill and MintCache configure
	// the built-in proxy.
	Proxy     string
	Request   string
	ReadFill  bool
	MintCache bool
	// NotRunnable says why the case cannot be measured (TLS 1.3
	// AES-256-GCM between two Go endpoints); it is reported, not run.
	NotRunnable string
	// notRunnableBy names the fields whose values make it so, for the
	// error when no case of a plan can run.
	notRunnableBy string
	// Params are the case's parameters as its record carries them.
	Params map[string]string
	// values are the case's values of the table's axes (Value).
	values map[string]any

	m *Matrix
}

// Matrix is a plan's axes with their defaults applied, the same for both
// modes: what the axis table reads.
type Matrix struct {
	Mode     string
	Versions []uint16
	Resume   []bool
	// resumeRatios, when set, replace resume: shares of connections
	// that offer a session.
	ResumeRatios []float64
	Mutual       bool
	Keys         []pki.KeyType
	KeyCache     []bool
	NameKeyCache bool // given identities, or a key-cache comparison
	Groups       []tls.CurveID
	Ciphers      []string
	Transports   []string
	Buffers      []int
	Directions   []string
	KTLS         []ktls.Mode
	Concurrency  []int
	// rates, when set, replace concurrency: open-loop cases on a
	// schedule of arrival's shape.
	Rates   []float64
	Arrival string
	File    bool
	// The proxy axes: used only when set (proxy not "", the lists not
	// empty), so that runs without a proxy keep their names and params.
	Proxy     string
	Request   string
	ReadFill  []bool
	MintCache []bool
	// Values are the values of the table's axes (Setting.Axis) the
	// plan gives, by their Param.
	Values Values

	axes []axis // the mode's axes, in table order (set by Cases)
}

// Transports a case can run over. TransportTCP is an alias of
// TransportTCP4, which records keep calling "tcp" (as before IPv6), so
// that older results stay comparable.
const (
	TransportTCP    = "tcp"
	TransportTCP4   = "tcp4"
	TransportTCP6   = "tcp6"
	TransportMemory = "memory"
	// TransportQUIC runs handshake cases over QUIC on UDP (TLS 1.3
	// only): the built-in server's QUIC listener, or a QUIC target.
	TransportQUIC = "quic"
)

// recordedTransport is the record's transport of a case's transport.
func recordedTransport(t string) string {
	if t == TransportTCP4 {
		return TransportTCP
	}
	return t
}

// CountInstructions is --count's value that counts the built-in
// server's instructions under callgrind.
const CountInstructions = "instructions"

// DefaultKeyType is the server key type when the plan names none.
const DefaultKeyType = pki.ECDSAP256

// ProxyBuiltin names the built-in proxy in a plan's proxy URL:
// tlsbench's own, started as a child process like the built-in server.
const ProxyBuiltin = "builtin"

// The wires of a throughput case: the bulk protocol, or HTTP requests,
// which a bumping HTTP proxy can parse.
const (
	RequestBulk = "bulk"
	RequestHTTP = "http"
)

// The directions of a throughput case: the server sends, the client
// sends, or both at once.
const (
	DirectionDownload = "download"
	DirectionUpload   = "upload"
	DirectionBoth     = "both"
)

// SizeName writes a size as --buffer takes it and case names show it:
// 4k, 16k, 1m, or a number of bytes.
func SizeName(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + "m"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + "k"
	}
	return strconv.Itoa(n)
}
