package cli

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/internal/hostname"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/probe"
	"github.com/tlsbench/tlsbench/results"
)

const probeUsage = `Usage: tlsbench probe HOST:PORT [flags]

Finds out what a TLS server really does: the TLS versions it accepts (1.0
and 1.1 too: Go's client can still offer them), the cipher suite, group and
ALPN protocol each version negotiates, its certificate chain, how many
session tickets it sends per connection and for how long, whether it
resumes TLS 1.2 tickets and TLS 1.3 PSKs, whether it resumes TLS 1.2 by
session ID (once, and --concurrency times at once: all of them when its
session cache is shared), whether a ticket can be used twice or only once,
whether a session made with a client certificate resumes, and the
resumption rate under --concurrency simultaneous handshakes. What tlsbench
cannot test (for example resumption with TLS 1.0 and 1.1) is reported as
"not tested" with the reason, never as "no". The exit status is 0 whenever
the probe ran, whatever the server supports.

After each handshake the client sends --request and reads the answer: TLS
1.3 tickets arrive after the handshake, and a client that closes without
reading never stores them (then every "resumed" handshake is a full one).
  auto      (the default) ask the server first, one connection per request
            tried, each waiting up to 2s or --timeout: HEAD / (http); GET /
            when HEAD gets no HTTP answer (http-get); line when the server
            sends the request back; line or ping when it says something
            else; wait when it answers nothing
  http      HEAD / HTTP/1.1 with Host and Connection: close, read to the end
            (the HTTP/2 preface instead when the server chose h2 by ALPN);
            the least an HTTP server answers
  http-get  the same with GET, for servers that answer GET only
            (openssl s_server -www)
  ping      one byte, echoed back (tlsbench serve, echo servers)
  line      "tlsbench\n", one line read back (openssl s_server -rev,
            gnutls-serv --echo)
  wait      send nothing, read what the server sends unasked (openssl
            s_server without -www)
  none      send nothing, read for --ticket-wait: servers that must not be
            sent anything; counts only tickets sent unprompted
Each connection keeps reading for --ticket-wait after the answer, for
tickets sent late.

With --quic the server is probed over QUIC (TLS 1.3 on UDP) instead: the
ALPN protocol it chooses (h3 and tlsbench-ping are offered unless --alpn
says otherwise), the QUIC versions it accepts (v1, v2), its session tickets
and whether they allow early data, resumption, whether it accepts a request
sent as early data (0-RTT), whether it accepts early data again on a ticket
used twice, and what it does with a replayed early-data flight: the same
datagrams sent again from another address, its answer compared with what
it sent to the original. Over QUIC the request follows the protocol the
server chose: HEAD / over HTTP/3 for h3 (GET with --request http-get), the
ping for tlsbench-ping.

Examples:
  tlsbench probe 127.0.0.1:443 --ca ca.pem --sni www.example.test
  tlsbench probe localhost:8443 --ca pki/ca.pem --request ping --format json
  tlsbench probe 127.0.0.1:443 --insecure --client-cert c.pem --client-key c-key.pem
  tlsbench probe 127.0.0.1:443 --ca ca.pem --alpn h2,http/1.1 --tls 1.3
  tlsbench probe --quic 127.0.0.1:443 --ca ca.pem --sni www.example.test

Flags:
`

// probeFlags are probe's flags, parsed.
type probeFlags struct {
	addr                     string
	sni, caFile, certFile    string
	keyFile, request, format string
	insecure, quic           bool
	// set says which flags were given, for the checks of --quic.
	set                     func(name string) bool
	concurrency, handshakes int
	timeout, ticketWait     time.Duration
	alpn                    []string
	versions                []uint16
}

// probeFlagNames are the flags of the settings the probe's report advises
// on (probe.Options.SettingName).
var probeFlagNames = map[string]string{
	"RootCAs": "--ca", "ServerName": "--sni", "Insecure": "--insecure",
	"ClientCert": "--client-cert", "ClientKey": "--client-key", "Concurrency": "--concurrency",
	"Request": "--request", "Timeout": "--timeout",
}

func probeCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseProbeFlags(args, stdout)
	if err != nil {
		return err
	}
	if err := f.validate(); err != nil {
		return err
	}
	o, err := f.options()
	if err != nil {
		return err
	}
	prog := newProgress(stderr, nil)
	o.Progress = prog.notice
	rep, err := probe.Run(ctx, o)
	prog.finish()
	if err != nil {
		return err
	}
	if f.format == "json" {
		err = probe.WriteJSON(stdout, rep)
	} else {
		err = probe.WriteTable(stdout, rep)
	}
	if err == nil && !rep.Answered() {
		// The report is printed (it says what each attempt met), but a
		// probe that learnt nothing is not a success.
		err = fmt.Errorf("probe %s: no handshake completed with any TLS version, so nothing was learnt about the server; see above what each attempt met", rep.Target)
		if f.quic {
			err = fmt.Errorf("probe %s: no QUIC handshake completed, so nothing was learnt about the server; see above what the attempt met", rep.Target)
		}
	}
	return err
}

// parseProbeFlags parses probe's command line: flags and one HOST:PORT.
func parseProbeFlags(args []string, stdout io.Writer) (*probeFlags, error) {
	fs := command.NewUsageFlagSet("probe", probeUsage, stdout)
	f := &probeFlags{versions: append([]uint16(nil), probe.AllVersions...)}
	fs.StringVar(&f.sni, "sni", "", "server `NAME` sent as SNI and verified (default: the host of HOST:PORT)")
	fs.StringVar(&f.caFile, "ca", "", "PEM `FILE` of CA certificates to verify the server (default: the system roots)")
	fs.BoolVar(&f.insecure, "insecure", false, "do not enforce verification of the server's certificate (the report still says whether it verifies)")
	fs.StringVar(&f.certFile, "client-cert", "", "client certificate chain, PEM `FILE` (with --client-key), presented when the server asks")
	fs.StringVar(&f.keyFile, "client-key", "", "client private key, PEM `FILE` (with --client-cert)")
	fs.StringVar(&f.request, "request", string(probe.RequestAuto), "first message after each handshake: auto, http, http-get, ping, line, wait, none (see above)")
	fs.IntVar(&f.concurrency, "concurrency", 64, "simultaneous handshakes of the resumption-rate test; 0 skips it")
	fs.IntVar(&f.handshakes, "handshakes", 0, "handshakes measured by the resumption-rate test (default: twice --concurrency)")
	fs.DurationVar(&f.timeout, "timeout", 5*time.Second, "limit for one connection")
	fs.DurationVar(&f.ticketWait, "ticket-wait", 300*time.Millisecond, "how long each connection keeps reading after the answer, for late tickets")
	fs.StringVar(&f.format, "format", "table", "output: table or json")
	fs.Var(command.List(&f.alpn, parseALPN, nil), "alpn", "ALPN protocols to offer, comma-separated, e.g. h2,http/1.1 (default: none)")
	fs.Var(command.List(&f.versions, parseProbeVersion, probeVersionName), "tls", "TLS versions to probe: 1.0, 1.1, 1.2, 1.3")
	fs.BoolVar(&f.quic, "quic", false, "probe over QUIC (TLS 1.3 on UDP): versions, tickets, resumption, 0-RTT and a replayed 0-RTT flight (see above)")

	positional, err := fs.ParseWithArgs(args)
	if err != nil {
		return nil, err
	}
	if len(positional) == 0 {
		return nil, command.Usagef("probe needs the server's address, e.g. 'tlsbench probe 127.0.0.1:443' (see 'tlsbench probe --help')")
	}
	if len(positional) > 1 {
		return nil, command.Usagef("unexpected argument %q: probe takes one HOST:PORT (see 'tlsbench probe --help')", positional[1])
	}
	f.addr = positional[0]
	f.set = fs.IsSet
	return f, nil
}

// validate checks the flags that need no file.
func (f *probeFlags) validate() error {
	host, port, err := net.SplitHostPort(f.addr)
	if err != nil || host == "" || port == "" {
		return command.Usagef("address %q: want HOST:PORT, e.g. 127.0.0.1:443 or [::1]:8443", f.addr)
	}
	if err := hostname.Check(host, hostname.Host); err != nil {
		return command.Usagef("address: the host %v", err)
	}
	if f.sni != "" {
		if err := hostname.Check(f.sni, hostname.Host); err != nil {
			return command.Usagef("--sni: %v", err)
		}
	}
	if f.format != "table" && f.format != "json" {
		return command.Usagef("--format: %q is not table or json", f.format)
	}
	if _, err := probe.ParseRequest(f.request); err != nil {
		return command.Usagef("--request: %v", err)
	}
	if f.concurrency < 0 || f.concurrency > 4096 {
		return command.Usagef("--concurrency %d: must be between 0 (skip the rate test) and 4096", f.concurrency)
	}
	if f.handshakes < 0 {
		return command.Usagef("--handshakes %d: must be at least 1 (or 0 for twice --concurrency)", f.handshakes)
	}
	if f.timeout <= 0 {
		return command.Usagef("--timeout %s: must be positive, e.g. 5s", f.timeout)
	}
	if f.ticketWait <= 0 {
		return command.Usagef("--ticket-wait %s: must be positive, e.g. 300ms", f.ticketWait)
	}
	if (f.certFile == "") != (f.keyFile == "") {
		return command.Usagef("--client-cert and --client-key go together: give both files of the client identity, or neither")
	}
	if f.quic {
		return f.validateQUIC()
	}
	return nil
}

// validateQUIC checks the flags that mean something else, or nothing,
// over QUIC.
func (f *probeFlags) validateQUIC() error {
	switch probe.Request(f.request) {
	case probe.RequestAuto, probe.RequestHTTP, probe.RequestHTTPGet, probe.RequestPing:
	default:
		return command.Usagef("--request %s: over QUIC the request is http or http-get (HTTP/3) or ping (tlsbench's own); leave --request out or give one of them with --quic", f.request)
	}
	if f.set("tls") && (len(f.versions) != 1 || f.versions[0] != tls.VersionTLS13) {
		return command.Usagef("--tls: QUIC carries TLS 1.3 only; leave --tls out with --quic, or give --tls 1.3")
	}
	for _, name := range []string{"concurrency", "handshakes"} {
		if f.set(name) {
			return command.Usagef("--%s: the resumption-rate test runs over TCP only; leave --%s out with --quic", name, name)
		}
	}
	return nil
}

// options are the probe's options from the flags, files loaded.
func (f *probeFlags) options() (probe.Options, error) {
	req, _ := probe.ParseRequest(f.request) // checked by validate
	o := probe.Options{
		Addr:           f.addr,
		ServerName:     f.sni,
		Insecure:       f.insecure,
		ALPN:           f.alpn,
		Request:        req,
		Versions:       f.versions,
		Concurrency:    f.concurrency,
		LoadHandshakes: f.handshakes,
		Timeout:        f.timeout,
		TicketWait:     f.ticketWait,
		QUIC:           f.quic,
		SettingName:    func(s string) string { return probeFlagNames[s] },
		Load:           probeLoad,
	}
	if f.quic {
		o.Versions = nil // TLS 1.3, as validateQUIC checked
	}
	if f.concurrency == 0 {
		o.Concurrency = -1
	}
	if f.caFile != "" {
		certs, err := pki.LoadCertsPEM(f.caFile)
		if err != nil {
			return o, command.Usagef("--ca: %v", err)
		}
		pool := x509.NewCertPool()
		for _, c := range certs {
			pool.AddCert(c)
		}
		o.RootCAs = pool
	}
	if f.certFile != "" {
		id, err := pki.LoadIdentityPEM(f.certFile, f.keyFile)
		if err != nil {
			return o, command.Usagef("--client-cert/--client-key: %v", err)
		}
		cert := id.TLSCertificate()
		o.ClientCert = &cert
	}
	return o, nil
}

func parseProbeVersion(s string) (uint16, error) {
	switch strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), "tls") {
	case "1.0":
		return tls.VersionTLS10, nil
	case "1.1":
		return tls.VersionTLS11, nil
	case "1.2":
		return tls.VersionTLS12, nil
	case "1.3":
		return tls.VersionTLS13, nil
	}
	return 0, fmt.Errorf("unknown TLS version %q (valid: 1.0, 1.1, 1.2, 1.3)", s)
}

func probeVersionName(v uint16) string {
	return strings.TrimPrefix(tls.VersionName(v), "TLS ")
}

// probeLoad runs the probe's resumption-rate test with the load generator
// of tlsbench run.
func probeLoad(ctx context.Context, c probe.LoadCase) (*results.Record, error) {
	return loadgen.RunHandshakes(ctx, measure.HandshakeCase{
		Name:          c.Name,
		Version:       c.Version,
		Resume:        true,
		Mutual:        c.Mutual,
		Concurrency:   c.Concurrency,
		Handshakes:    c.Handshakes,
		Iterations:    1,
		MinResumption: nil,
		MaxErrorRate:  1, // the probe reports failures itself
		Clients:       []*tls.Config{c.Client},
		Dialer:        c.Dialer,
		Exchange:      c.Exchange,
		ConnTimeout:   c.ConnTimeout,
		Words:         c.Words,
	})
}
