package proxycmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/internal/counts"
	"github.com/tlsbench/tlsbench/internal/hostname"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/proxy"
)

const proxyUsage = `Usage: tlsbench proxy [flags]

Runs the built-in TLS-intercepting proxy. A client asks for a tunnel with
HTTP CONNECT host:port; the proxy connects to that origin with TLS and
verifies it, answers 200, then terminates the client's TLS with a
certificate it issues for the name the client asks for (which must be
the CONNECT host), signed by the proxy's CA, and relays the bytes between
the two. Clients must trust that CA: its path is printed at start.
Without --ca-cert/--ca-key the proxy writes a CA of its own under
--pki-dir on first start and reuses it after.

It serves clients on this machine and those --allow names, tunnels only
to --connect-ports of --allow-dest destinations (default: this machine;
a request for another gets 403 with the reason), and answers anything
but CONNECT with 405. Whatever --allow-dest says, it never connects to an
unspecified (0.0.0.0, ::), link-local (169.254.0.0/16, where cloud
metadata services answer; fe80::/10), multicast or broadcast address,
judged on the address a name resolves to. An origin
that cannot be reached or verified gets 502 with the reason in the
X-Tlsbench-Error header. A client that sends no complete request within
--request-timeout is closed, and so is a tunnel whose client or origin
takes nothing of what waits for it for --write-timeout. Requests refused,
stalled tunnels closed and origins that failed are logged on stderr, one
line each, at most 10 lines a second. Stop it with Ctrl-C (exit 0).

Examples:
  tlsbench proxy
  tlsbench proxy --connect-ports 443,8443 --origin-ca pki/ca.pem
  tlsbench proxy --allow-dest 10.1.0.0/16,origin.example --origin-ca pki/ca.pem
  tlsbench proxy --buffer 64k --read-fill --ktls auto
  curl --proxy http://127.0.0.1:3129 --cacert <CA path printed> https://localhost:8443/
  openssl s_client -proxy 127.0.0.1:3129 -connect localhost:8443 -CAfile <CA path printed>

Flags:
`

// proxyFlags are proxy's flags, parsed.
type proxyFlags struct {
	o                                 proxy.Options
	allow, allowDest                  []string
	buffer, mintCache, originSessions string
	profile                           string
	controlFD                         int
	connectPorts                      []int
	isSet                             func(string) bool
}

// Proxy is tlsbench proxy: the built-in proxy alone, until Ctrl-C.
func Proxy(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseProxyFlags(args, stdout)
	if err != nil {
		return err
	}
	if f.controlFD >= 0 {
		return proxyChild(ctx, f.controlFD, stderr)
	}
	o, err := f.options()
	if err != nil {
		return err
	}
	ctx, stopHup := signal.NotifyContext(ctx, syscall.SIGHUP)
	defer stopHup()
	level, _ := command.ParseLogLevel(o.LogLevel)
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	p, err := proxy.New(o, proxy.WithLogger(logger))
	if err != nil {
		return command.Usagef("%s", command.UserTextNamed(err, fieldFlags))
	}
	stopProfile, err := command.WholeProfile(f.profile, stderr)
	if err != nil {
		return err
	}
	ln, err := proxy.Listen(o.Listen)
	if err != nil {
		stopProfile(false)
		if errors.Is(err, syscall.EADDRINUSE) {
			return command.Usagef("--listen %s: address already in use; choose another port (or 127.0.0.1:0 for a free one)", o.Listen)
		}
		return command.Usagef("--listen %s: %v", o.Listen, err)
	}
	dest := o.AllowDest
	if len(dest) == 0 {
		dest = proxy.DefaultAllowDest
	}
	fmt.Fprintf(stdout, "proxy listening on %s (CONNECT to ports %s of %s; buffer %s, read fill %s, kernel TLS %s, mint cache %s, origin sessions %s)\n",
		ln.Addr(), joinInts(o.ConnectPorts), strings.Join(dest, ","), plan.SizeName(o.Buffer), command.ShowOnOff(o.ReadFill), o.KTLS, f.mintCache, f.originSessions)
	fmt.Fprintf(stdout, "CA certificate: %s\n", p.CAFile())
	err = p.Serve(ctx, ln)
	if perr := stopProfile(true); err == nil {
		err = perr
	}
	c := p.Counters()
	fmt.Fprintf(stderr, "relayed %d connections (%d bytes to origins, %d to clients), %d refused, %d certificates issued\n",
		c.Connects, c.BytesToOrigin, c.BytesToClient, counts.Sum(c.Refused), c.Mints)
	return err
}

// parseProxyFlags parses proxy's command line.
func parseProxyFlags(args []string, stdout io.Writer) (*proxyFlags, error) {
	fs := command.NewUsageFlagSet("proxy", proxyUsage, stdout)
	f := &proxyFlags{connectPorts: []int{443}, isSet: fs.IsSet}
	fs.StringVar(&f.o.Listen, "listen", proxy.DefaultListen, "TCP `address` the proxy listens on (an IPv4 address listens on IPv4 only, an IPv6 one on IPv6 only)")
	fs.Var(command.List(&f.allow, parseCIDR, nil), "allow", "client networks served besides this machine, `CIDR`s comma-separated (e.g. 10.1.0.0/16)")
	fs.Var(command.List(&f.allowDest, parseDest, nil), "allow-dest", "destinations CONNECT may reach, comma-separated: networks (`CIDR`s), addresses, and host names, which are reached whatever they resolve to (default: this machine, 127.0.0.0/8,::1; the CA the proxy writes vouches only for these)")
	fs.Var(portsFlag{command.List(&f.connectPorts, parsePort, strconv.Itoa)}, "connect-ports", "origin `ports` CONNECT may reach, comma-separated")
	fs.StringVar(&f.o.CACert, "ca-cert", "", "CA certificate `FILE` that signs the issued certificates (with --ca-key)")
	fs.StringVar(&f.o.CAKey, "ca-key", "", "private key `FILE` of --ca-cert")
	fs.StringVar(&f.o.PKIDir, "pki-dir", "", "`DIR` of the CA the proxy writes on first start and reuses after, without --ca-cert (default: tlsbench/proxy in the user's configuration directory, e.g. ~/.config/tlsbench/proxy)")
	fs.StringVar(&f.o.OriginCA, "origin-ca", "", "CA certificates `FILE` that origins must chain to (default: the system's)")
	fs.BoolVar(&f.o.OriginInsecure, "origin-insecure", false, "do not verify origins (for tests: anyone between the proxy and the origin can read the traffic)")
	fs.StringVar(&f.buffer, "buffer", "16k", "relay buffer `SIZE`, e.g. 4k, 16k, 64k")
	fs.BoolVar(&f.o.ReadFill, "read-fill", false, "fill the relay buffer with what is ready before each write, instead of one read per write")
	fs.StringVar(&f.o.KTLS, "ktls", proxy.KTLSOff, "kernel TLS on both legs: off, auto (user space where the kernel cannot, saying why) or on (refused at start where the kernel cannot)")
	fs.StringVar(&f.o.LeafKey, "leaf-key", proxy.LeafECDSAP256, "key type of the issued certificates: "+proxy.LeafECDSAP256+" or "+proxy.LeafRSA2048+" (one key for all of them)")
	fs.StringVar(&f.mintCache, "mint-cache", "on", "on: keep issued certificates (least recently used dropped first); off: issue one per connection")
	fs.StringVar(&f.originSessions, "origin-sessions", "on", "on: resume sessions with origins (a session cache per proxy); off: a full handshake with the origin on every connection")
	fs.IntVar(&f.o.MintCacheSize, "mint-cache-size", proxy.DefaultMintCacheSize, "certificates the mint cache keeps")
	fs.StringVar(&f.profile, "profile", "", "write a CPU profile of the whole run to `FILE` (go tool pprof), put in place when the proxy stops; one that fails to start leaves an existing FILE as it was")
	fs.IntVar(&f.o.MaxConns, "max-conns", proxy.DefaultMaxConns, "connections served at once; more are answered 503")
	fs.DurationVar(&f.o.RequestTimeout, "request-timeout", proxy.DefaultRequestTimeout, "close a client that has not sent a complete CONNECT request this long after connecting")
	fs.DurationVar(&f.o.HandshakeTimeout, "handshake-timeout", proxy.DefaultHandshakeTimeout, "limit, after the CONNECT request, for reaching the origin and both TLS handshakes")
	fs.DurationVar(&f.o.IdleTimeout, "idle-timeout", proxy.DefaultIdleTimeout, "close a tunnel in which neither side sent anything for this long")
	fs.DurationVar(&f.o.WriteTimeout, "write-timeout", proxy.DefaultWriteTimeout, "close a tunnel whose client or origin has taken none of the bytes waiting for it for this long, however busy the other direction (Linux)")
	fs.StringVar(&f.o.LogLevel, "log-level", "info", "what goes to stderr: error, warn (origins that failed), info (also requests refused), debug (also idle tunnels closed, relay modes)")
	fs.IntVar(&f.controlFD, "control-fd", -1, "internal: serve as tlsbench run's child on this control channel")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	return f, nil
}

// options checks the flags and makes the proxy's Options.
func (f *proxyFlags) options() (proxy.Options, error) {
	o := f.o
	o.Allow, o.AllowDest, o.ConnectPorts = f.allow, f.allowDest, f.connectPorts
	var err error
	if o.MintCache, err = command.ParseOnOff(f.mintCache); err != nil {
		return o, command.Usagef("--mint-cache: %v", err)
	}
	if o.OriginSessions, err = command.ParseOnOff(f.originSessions); err != nil {
		return o, command.Usagef("--origin-sessions: %v", err)
	}
	n, err := plan.ParseSize(f.buffer)
	if err != nil {
		return o, command.Usagef("--buffer: %v", err)
	}
	if n > proxy.MaxBuffer {
		return o, command.Usagef("--buffer %s: larger than the largest relay buffer, %s", f.buffer, plan.SizeName(proxy.MaxBuffer))
	}
	o.Buffer = int(n)
	// Zero means "the default" to the library: on the command line it
	// is a mistake.
	for name, n := range map[string]int{"max-conns": o.MaxConns, "mint-cache-size": o.MintCacheSize} {
		if n < 1 {
			return o, command.Usagef("--%s %d: must be at least 1", name, n)
		}
	}
	// Each example is the flag's default, which a user who set it to
	// zero may well want back.
	for _, t := range []struct {
		name   string
		d, Def time.Duration
	}{
		{"request-timeout", o.RequestTimeout, proxy.DefaultRequestTimeout},
		{"handshake-timeout", o.HandshakeTimeout, proxy.DefaultHandshakeTimeout},
		{"idle-timeout", o.IdleTimeout, proxy.DefaultIdleTimeout},
		{"write-timeout", o.WriteTimeout, proxy.DefaultWriteTimeout},
	} {
		if t.d <= 0 {
			return o, command.Usagef("--%s %v: must be positive, e.g. %v", t.name, t.d, t.Def)
		}
	}
	if o.PKIDir == "" && o.CACert == "" {
		dir, err := proxy.DefaultPKIDir()
		if err != nil {
			return o, command.Usagef("--pki-dir: no per-user directory for the proxy's CA here; name one, or give --ca-cert and --ca-key")
		}
		o.PKIDir = dir
	}
	// In the order of the command's help, so that the first missing file
	// is always the one named.
	for _, f := range []struct{ flag, path string }{{"--ca-cert", o.CACert}, {"--ca-key", o.CAKey}, {"--origin-ca", o.OriginCA}} {
		if f.path != "" && !command.FileExists(f.path) {
			return o, command.Usagef("%s %s: no such file", f.flag, f.path)
		}
	}
	if err := o.Validate(); err != nil {
		return o, command.Usagef("%s", command.UserTextNamed(err, fieldFlags))
	}
	return o, nil
}

// proxyChild is the child proxy of tlsbench run: the proxy's own child
// main, on the inherited control channel.
func proxyChild(ctx context.Context, fd int, stderr io.Writer) error {
	conn, err := command.ControlConn(fd)
	if err != nil {
		return err
	}
	return proxy.ChildMain(ctx, conn, command.ChildSelf(stderr))
}

// portsFlag is --connect-ports: an empty element is refused rather than
// skipped, as it is most likely a port lost in editing.
type portsFlag struct{ command.ListFlag[int] }

func (f portsFlag) Set(s string) error {
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			return fmt.Errorf("%q has an empty element; give ports comma-separated, e.g. 443,8443", s)
		}
	}
	return f.ListFlag.Set(s)
}

func parseCIDR(s string) (string, error) {
	if _, _, err := net.ParseCIDR(s); err != nil {
		return "", fmt.Errorf("%q is not a network in CIDR form, e.g. 10.0.0.0/8", s)
	}
	return s, nil
}

// parseDest reads an element of --allow-dest: its form only; what the
// proxy never dials is the proxy's to say.
func parseDest(s string) (string, error) {
	if _, err := netip.ParsePrefix(s); err == nil {
		return s, nil
	}
	if _, err := netip.ParseAddr(s); err == nil {
		return s, nil
	}
	if strings.Contains(s, "/") {
		return "", fmt.Errorf("%q is not a network in CIDR form, an address or a host name, e.g. 10.0.0.0/8, 192.0.2.7 or origin.example", s)
	}
	// The one check of host names every flag makes: what the proxy
	// compares a CONNECT host with is a name a CONNECT request may carry.
	if err := hostname.Check(s, hostname.Host); err != nil {
		return "", fmt.Errorf("%v; or give a network in CIDR form or an address, e.g. 10.0.0.0/8 or 192.0.2.7", err)
	}
	return s, nil
}

func parsePort(s string) (int, error) {
	n, err := strconv.Atoi(s)
	// Digits only, as a URL writes a port: no sign, no leading zero.
	if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != s {
		return 0, fmt.Errorf("%q is not a port (1 to 65535)", s)
	}
	return n, nil
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// fieldFlags are the proxy command's flags by the fields of the proxy's
// options they set, which the settings table does not declare (those it
// does, such as PKIDir, are written from the table).
var fieldFlags = map[string]string{
	"Allow": "--allow", "AllowDest": "--allow-dest", "ConnectPorts": "--connect-ports", "CACert": "--ca-cert",
	"CAKey": "--ca-key", "OriginCA": "--origin-ca", "OriginInsecure": "--origin-insecure", "LeafKey": "--leaf-key",
	"MintCacheSize": "--mint-cache-size", "RequestTimeout": "--request-timeout", "WriteTimeout": "--write-timeout",
}
