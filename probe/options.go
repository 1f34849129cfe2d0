package probe

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/hostname"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// Options say what to probe and how.
type Options struct {
	// Addr is the server's host:port.
	Addr string
	// ServerName is sent as SNI (unless it is an IP address) and verified
	// against the certificate; default: the host part of Addr.
	ServerName string
	// RootCAs verify the server; nil uses the system roots.
	RootCAs *x509.CertPool
	// Insecure skips certificate verification (the chain is still
	// reported, and checked against RootCAs for information).
	Insecure bool
	// ClientCert is presented when the server asks for one.
	ClientCert *tls.Certificate
	// ALPN protocols offered, in preference order (none by default;
	// over QUIC, which requires one, h3 and tlsconf.ALPNQUICPing, or
	// the latter alone with RequestPing).
	ALPN []string
	// QUIC probes the server over QUIC (TLS 1.3 on UDP) instead of TCP:
	// the QUIC versions it accepts, its tickets and whether they allow
	// early data, resumption, early data (0-RTT) accepted, a ticket's
	// early data accepted twice, and a replayed early-data flight (see
	// QUIC). Versions must then be empty or TLS 1.3 alone, and the
	// resumption-rate test is not run.
	QUIC bool
	// Request is sent after each handshake. The default, RequestAuto,
	// asks the server first which request it answers
	// (client.DetectRequest). Over QUIC it is RequestHTTP (the
	// default) or RequestHTTPGet (a HEAD or GET over HTTP/3, when the
	// server chose h3) or RequestPing (tlsbench's own,
	// tlsconf.ALPNQUICPing); the protocol the server chose by ALPN
	// decides which is sent.
	Request Request
	// Versions to probe (default TLS 1.0, 1.1, 1.2 and 1.3).
	Versions []uint16
	// Concurrency of the resumption-rate test (default 64; negative
	// skips it) and LoadHandshakes its measured handshakes (default twice
	// Concurrency).
	Concurrency    int
	LoadHandshakes int
	// Load runs the resumption-rate test's handshakes, as `tlsbench run`
	// does (the command passes its load generator); nil skips the test.
	Load func(ctx context.Context, c LoadCase) (*results.Record, error)
	// Timeout bounds each connection (default 5 s).
	Timeout time.Duration
	// TicketWait is how long a connection keeps reading after the answer
	// to its request, for tickets sent late (default 300 ms).
	TicketWait time.Duration
	// Progress, when set, receives a line before each step.
	Progress func(string)
	// SettingName, when set, names a setting in the advice the report
	// gives (e.g. "give RootCAs FILE or ServerName NAME, or Insecure"), so
	// that a command line can speak of its flags. Its argument is one of
	// the Setting constants (RootCAs, ServerName, Insecure, ClientCert,
	// ClientKey, Concurrency, Request, Timeout); by default the report
	// uses those names.
	SettingName func(setting string) string
}

// LoadCase is the resumption-rate test: Handshakes resumed handshakes
// in waves of Concurrency, one iteration, every failure reported rather
// than gated (the probe reports failures itself), no minimum resumption.
type LoadCase struct {
	Name        string
	Version     uint16
	Mutual      bool
	Concurrency int
	Handshakes  int
	Client      *tls.Config
	Dialer      client.Dialer
	Exchange    client.Exchange
	ConnTimeout time.Duration
	Words       client.Words
}

// Setting is a setting the report's advice names, by its field of
// Options (ClientCert and ClientKey for the files of a client
// certificate): Options.SettingName writes it in a caller's words.
type Setting string

// The settings the advice names.
const (
	SettingRootCAs     Setting = "RootCAs"
	SettingServerName  Setting = "ServerName"
	SettingInsecure    Setting = "Insecure"
	SettingClientCert  Setting = "ClientCert"
	SettingClientKey   Setting = "ClientKey"
	SettingConcurrency Setting = "Concurrency"
	SettingRequest     Setting = "Request"
	SettingTimeout     Setting = "Timeout"
)

// advice is the advice of format and args, the settings among args
// written in o's words (their names by default).
func (o Options) advice(format string, args ...any) string {
	for i, a := range args {
		if s, ok := a.(Setting); ok {
			args[i] = o.settingName(s)
		}
	}
	return fmt.Sprintf(format, args...)
}

func (o Options) settingName(s Setting) string {
	if o.SettingName != nil {
		return o.SettingName(string(s))
	}
	return string(s)
}

// Request is the first message sent after a handshake; the probe and the
// benchmark share client's implementation.
type Request = client.Request

// The requests (see client.Request). RequestNone sends nothing and reads
// for TicketWait: it does not prove the connection carries data, and
// counts only tickets the server sends unprompted.
const (
	RequestHTTP    = client.RequestHTTP
	RequestHTTPGet = client.RequestHTTPGet
	RequestPing    = client.RequestPing
	RequestLine    = client.RequestLine
	RequestWait    = client.RequestWait
	RequestNone    = client.RequestNone
	RequestAuto    = client.RequestAuto
)

// ParseRequest parses a Request name.
func ParseRequest(s string) (Request, error) { return client.ParseRequest(s) }

// AllVersions are the versions probed by default.
var AllVersions = []uint16{tls.VersionTLS10, tls.VersionTLS11, tls.VersionTLS12, tls.VersionTLS13}

func (o Options) withDefaults() (Options, error) {
	host, _, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return o, fmt.Errorf("address %s: %v (want host:port)", hostname.Quote(o.Addr), hostname.Reason(err))
	}
	if o.ServerName == "" {
		o.ServerName = host
	}
	if o.Request == "" {
		o.Request = RequestAuto
	}
	if _, err := ParseRequest(string(o.Request)); err != nil {
		return o, err
	}
	if o.QUIC {
		if err := o.quicDefaults(); err != nil {
			return o, err
		}
	}
	if len(o.Versions) == 0 {
		o.Versions = AllVersions
	}
	for _, v := range o.Versions {
		if v < tls.VersionTLS10 || v > tls.VersionTLS13 {
			return o, fmt.Errorf("version 0x%04x: tlsbench probes TLS 1.0 to 1.3", v)
		}
	}
	if o.Concurrency == 0 {
		o.Concurrency = 64
	}
	if o.LoadHandshakes <= 0 {
		o.LoadHandshakes = 2 * max(o.Concurrency, 1)
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	if o.TicketWait <= 0 {
		o.TicketWait = 300 * time.Millisecond
	}
	if o.ClientCert != nil && len(o.ClientCert.Certificate) == 0 {
		return o, errors.New("client certificate has no certificate")
	}
	return o, nil
}

// TransportQUIC is Report.Transport of a probe over QUIC.
const TransportQUIC = "quic"

// quicDefaults checks and completes the options of a probe over QUIC.
func (o *Options) quicDefaults() error {
	if o.Request == RequestAuto {
		o.Request = RequestHTTP // the server's choice of protocol decides
	}
	switch o.Request {
	case RequestHTTP, RequestHTTPGet, RequestPing:
	default:
		return fmt.Errorf("request %q: over QUIC the request is %s or %s (HTTP/3) or %s (tlsbench's own)", o.Request, RequestHTTP, RequestHTTPGet, RequestPing)
	}
	if len(o.Versions) > 1 || len(o.Versions) == 1 && o.Versions[0] != tls.VersionTLS13 {
		return errors.New("QUIC carries TLS 1.3 only")
	}
	o.Versions = []uint16{tls.VersionTLS13}
	if len(o.ALPN) == 0 {
		o.ALPN = []string{ALPNHTTP3, tlsconf.ALPNQUICPing}
		if o.Request == RequestPing {
			o.ALPN = []string{tlsconf.ALPNQUICPing}
		}
	}
	return nil
}
