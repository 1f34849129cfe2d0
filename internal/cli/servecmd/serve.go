package servecmd

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/internal/counts"
	"github.com/tlsbench/tlsbench/internal/hostname"
	"github.com/tlsbench/tlsbench/internal/tempdir"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/tlsconf"
)

const serveUsage = `Usage: tlsbench serve [flags]

Runs the built-in TLS server alone, so that other clients (openssl s_client,
s_time, another tlsbench) can be pointed at it. Without --pki-dir it writes a
fresh test PKI to a new temporary directory, removed when the server stops
(and, if it is killed outright, by the next serve's start); it prints the
address and the path of the CA certificate clients must trust. The keys of
a --pki-dir must be private to their owner (chmod 600), and the directory
not writable by others (chmod 700).
Connections are answered by echoing what the client sends; one that starts
with an HTTP/1.x request gets a short HTTP/1.1 response instead (for curl,
browsers and openssl s_time -www). Stop it with Ctrl-C (exit 0: the normal
way to end a server).

With --quic the server also accepts QUIC (TLS 1.3) on UDP at the same
address and port: tlsbench's own exchange (application protocol
tlsbench-ping, as tlsbench run --transport quic speaks it) and HTTP/3 (h3:
a short answer to GET and HEAD). A client that resumes a session may send
its request as early data (0-RTT); --early-data-policy says whether the
server accepts it. By default (single-use) it accepts early data on a
ticket's first use only: the early data of a replayed first flight is
refused (a real client sends its request again after the handshake).
accept answers replays too, for a lab whose clients reuse their tickets,
and says so on stderr at start. The counts of
early data offered, accepted and rejected are printed when the server
stops.

A connection that sends nothing for --first-byte-timeout after it was
accepted is closed, and a handshake is bounded by --handshake-timeout.
Over --max-conns connections at once (TCP and QUIC together), a new one is
closed as soon as it is accepted, or refused over QUIC, and logged, so that
silent clients cannot take every descriptor and leave other clients
waiting.

Each failed handshake is logged on stderr as one line: the client's address,
the kind of failure and its reason (the certificate error, the alert, the
client certificate's subject); at most 10 lines a second, then a line with
the count of those left out. --log-level warn keeps only the handshakes the
server refused; debug adds idle connections closed and HTTP requests.

Examples:
  tlsbench serve
  tlsbench serve --listen 127.0.0.1:4433 --key rsa-2048 --pki-dir ./pki
  tlsbench serve --mutual --session-store stateful
  tlsbench serve --identity pki/server-ecdsa-p256.pem,pki/server-ecdsa-p256-key.pem --identity pki/server-rsa-2048.p12 --p12-password-file pw
  openssl s_client -connect 127.0.0.1:8443 -CAfile <CA path printed> -sess_out s.pem
  curl --cacert <CA path printed> https://localhost:8443/
  tlsbench serve --quic
  gtlsclient --session-file s.pem --tp-file tp.txt 127.0.0.1 8443 https://localhost/
    (twice: the second run resumes and sends its request as early data)

Flags:
`

// serveFlags are serve's flags, parsed.
type serveFlags struct {
	*ServerFlags
	keyType, clientCA, keyCache, pkiDir, logLevel string
	profile, earlyDataPolicy                      string
	quic                                          bool
	controlFD, maxConns                           int
	idleTimeout, firstByteTimeout                 time.Duration
	versions                                      []uint16
	isSet                                         func(string) bool
}

// serveSetup is what serve's flags make: the server's options and what
// the banner tells clients.
type serveSetup struct {
	opts                          server.Options
	level                         slog.Level
	keyCache                      bool
	caFile, clientCert, clientKey string
	cleanup                       func() // removes a temporary PKI
	// stale are the temporary PKIs of servers killed before they could
	// remove theirs, removed at this start.
	stale []string
}

// Serve is tlsbench serve: the built-in server alone, until Ctrl-C.
func Serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseServeFlags(args, stdout)
	if err != nil {
		return err
	}
	if f.controlFD >= 0 {
		return serveChild(ctx, f.controlFD, stderr)
	}
	// The process is the server alone: it collects garbage as the child
	// server does, so that both measure alike.
	server.SetProcessGC()
	// A closed terminal (SIGHUP) and SIGQUIT stop the server as Ctrl-C
	// does, so that it still removes its temporary PKI (SIGQUIT would
	// dump the goroutines and exit without).
	ctx, stopHup := signal.NotifyContext(ctx, syscall.SIGHUP, syscall.SIGQUIT)
	defer stopHup()
	st, err := f.setup()
	if st.cleanup != nil {
		// It holds a private key: it goes with the server, whether the
		// server stops, is interrupted (Ctrl-C, SIGTERM) or fails to
		// start.
		defer st.cleanup()
	}
	if err != nil {
		return err
	}
	if st.opts.QUIC && st.opts.EarlyDataPolicy == server.EarlyDataAccept {
		fmt.Fprintln(stderr, command.AcceptWarning)
	}
	// Warnings worth a human's attention (why no identity fit a
	// ClientHello, a watched file that failed to reload) go to stderr.
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: st.level}))
	for _, d := range st.stale {
		logger.Info("removed a temporary PKI left by a server stopped before it could remove it", "dir", d)
	}
	stopProfile, err := command.WholeProfile(f.profile, stderr)
	if err != nil {
		return err
	}
	srv, ln, ql, err := startServe(st.opts, logger)
	if err != nil {
		stopProfile(false)
		return err
	}
	st.printBanner(stdout, srv, ln.Addr(), ql)
	err = serveAll(ctx, srv, ln, ql)
	if perr := stopProfile(true); err == nil {
		err = perr
	}
	c := srv.Counters()
	fmt.Fprintf(stderr, "served %d handshakes (%d resumed), %d failed", c.Handshakes, c.Resumed, counts.Sum(c.Failures))
	if c.RefusedMaxConns > 0 {
		fmt.Fprintf(stderr, ", %d connections refused at the connection limit", c.RefusedMaxConns)
	}
	if !st.keyCache {
		fmt.Fprintf(stderr, ", %d key decryptions", c.KeyDecryptions)
	}
	if ql != nil {
		fmt.Fprintf(stderr, "; over QUIC %d, early data offered %d, accepted %d, rejected %d",
			counts.Sum(c.QUICVersions), c.EarlyDataOffered, c.EarlyDataAccepted, c.EarlyDataRejected)
		if c.QUICRefused > 0 {
			fmt.Fprintf(stderr, ", %d QUIC connections refused", c.QUICRefused)
		}
	}
	fmt.Fprintln(stderr)
	return err
}

// serveAll serves TCP on ln and, when ql is not nil, QUIC on ql, until
// ctx ends.
func serveAll(ctx context.Context, srv *server.Server, ln net.Listener, ql *server.QUICListener) error {
	if ql == nil {
		return srv.Serve(ctx, ln)
	}
	quicDone := make(chan error, 1)
	go func() { quicDone <- srv.ServeQUIC(ctx, ql) }()
	err := srv.Serve(ctx, ln)
	if qerr := <-quicDone; err == nil {
		err = qerr
	}
	return err
}

// parseServeFlags parses serve's command line.
func parseServeFlags(args []string, stdout io.Writer) (*serveFlags, error) {
	fs := command.NewUsageFlagSet("serve", serveUsage, stdout)
	f := DefineServeFlags(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	return f, nil
}

// DefineServeFlags defines serve's flags on fs.
func DefineServeFlags(fs *command.FlagSet) *serveFlags {
	f := &serveFlags{ServerFlags: DefineServerFlags(fs, "127.0.0.1:8443", true), isSet: fs.IsSet}
	fs.DefString(&f.keyType, "key", string(pki.ECDSAP256))
	fs.DefString(&f.clientCA, "client-ca", "")
	fs.DefString(&f.keyCache, "key-cache", "on")
	fs.DefString(&f.pkiDir, "pki-dir", "")
	fs.DefInt(&f.controlFD, "control-fd", -1)
	fs.DefString(&f.profile, "profile", "")
	fs.DefString(&f.logLevel, "log-level", "info")
	fs.DefBool(&f.quic, "quic", false)
	fs.DefString(&f.earlyDataPolicy, "early-data-policy", server.EarlyDataSingleUse)
	fs.DefDuration(&f.idleTimeout, "idle-timeout", server.DefaultIdleTimeout)
	fs.DefDuration(&f.firstByteTimeout, "first-byte-timeout", server.DefaultFirstByteTimeout)
	fs.DefInt(&f.maxConns, "max-conns", 0)
	f.versions = []uint16{tls.VersionTLS12, tls.VersionTLS13}
	fs.Def("tls", command.List(&f.versions, tlsconf.ParseVersion, tlsconf.VersionName))
	return f
}

// setup validates the flags and makes the server's options: from the
// --identity files, or from a test PKI it finds or writes.
func (f *serveFlags) setup() (serveSetup, error) {
	var st serveSetup
	var err error
	if st.level, err = command.ParseLogLevel(f.logLevel); err != nil {
		return st, command.Usagef("--log-level %q: %v", f.logLevel, err)
	}
	if f.idleTimeout <= 0 || f.idleTimeout > command.MaxIdleTimeout {
		return st, command.Usagef("--idle-timeout %v: must be positive and at most %v, e.g. 30s", f.idleTimeout, command.MaxIdleTimeout)
	}
	if f.firstByteTimeout <= 0 || f.firstByteTimeout > server.MaxFirstByteTimeout {
		return st, command.Usagef("--first-byte-timeout %v: must be positive and at most %v, e.g. 3s", f.firstByteTimeout, server.MaxFirstByteTimeout)
	}
	if f.isSet("max-conns") && (f.maxConns < 1 || f.maxConns > server.MaxMaxConns) {
		return st, command.Usagef("--max-conns %d: must be between 1 and %d", f.maxConns, server.MaxMaxConns)
	}
	if st.keyCache, err = command.ParseOnOff(f.keyCache); err != nil {
		return st, command.Usagef("--key-cache: %v", err)
	}
	kt, err := pki.ParseKeyType(f.keyType)
	if err != nil {
		return st, command.Usagef("--key: %v", err)
	}
	if _, _, err := net.SplitHostPort(f.Listen); err != nil {
		return st, command.Usagef("--listen %s: %v (want host:port, e.g. 127.0.0.1:8443)", hostname.Quote(f.Listen), hostname.Reason(err))
	}
	if err := hostname.CheckHostPort(f.Listen); err != nil {
		return st, command.Usagef("--listen: the host %v", err)
	}
	if f.clientCA != "" && !f.Mutual {
		return st, command.Usagef("--client-ca applies to client certificates: add --mutual")
	}
	if err := f.checkQUIC(); err != nil {
		return st, err
	}
	st.opts = server.Options{DisableKeyCache: !st.keyCache, IdleTimeout: f.idleTimeout, QUIC: f.quic, EarlyDataPolicy: f.earlyDataPolicy,
		FirstByteTimeout: f.firstByteTimeout, MaxConns: f.maxConns}
	if err := f.Apply(&st.opts, f.isSet); err != nil {
		return st, err
	}
	if len(f.Identities) > 0 {
		err = f.checkIdentities(st.keyCache)
	} else {
		err = f.testPKI(&st, kt)
	}
	if err != nil {
		return st, err
	}
	if f.Mutual {
		st.opts.ClientCA = f.clientCA
		if st.opts.ClientCA == "" {
			st.opts.ClientCA = st.caFile
		}
	}
	for _, v := range f.versions {
		st.opts.Versions = append(st.opts.Versions, tlsconf.VersionName(v))
	}
	if st.opts.ClientCA != "" && !command.FileExists(st.opts.ClientCA) {
		return st, command.Usagef("--client-ca %s: no such file", st.opts.ClientCA)
	}
	return st, nil
}

// checkQUIC checks --quic and the flags that go with it.
func (f *serveFlags) checkQUIC() error {
	if err := command.CheckEarlyDataPolicy(f.earlyDataPolicy); err != nil {
		return err
	}
	if f.isSet("early-data-policy") && !f.quic {
		return command.Usagef("--early-data-policy applies to QUIC: add --quic")
	}
	if f.quic && !slices.Contains(f.versions, tls.VersionTLS13) {
		return command.Usagef("--quic needs TLS 1.3: add 1.3 to --tls")
	}
	return nil
}

// checkIdentities checks the flags that go with --identity, and the
// identities themselves: the files decide, nothing is generated.
func (f *serveFlags) checkIdentities(keyCache bool) error {
	for _, name := range []string{"key", "pki-dir"} {
		if f.isSet(name) {
			return command.Usagef("--%s generates a test PKI; with --identity the files decide", name)
		}
	}
	if f.Mutual && f.clientCA == "" {
		return command.Usagef("--mutual with --identity needs the CA of the client certificates: --client-ca FILE")
	}
	_, err := f.LoadIdentities(keyCache)
	return err
}

// testPKI finds or writes the test PKI in --pki-dir, or in a new
// temporary directory that st.cleanup removes, and names its files in st.
func (f *serveFlags) testPKI(st *serveSetup, kt pki.KeyType) error {
	dir := f.pkiDir
	if dir == "" {
		var err error
		if dir, st.stale, err = tempdir.Make("tlsbench-serve-"); err != nil {
			return fmt.Errorf("temporary PKI directory: %w", err)
		}
		st.cleanup = func() { tempdir.Remove(dir) }
	}
	withClient := f.Mutual && f.clientCA == ""
	if st.cleanup == nil {
		if err := checkPrivatePKI(dir, kt, withClient); err != nil {
			return command.Usagef("--pki-dir: %v", err)
		}
	}
	layout, err := ensurePKI(dir, kt, withClient)
	var exists *pki.ExistsError
	if errors.As(err, &exists) {
		return command.Usagef("--pki-dir %s: already holds a PKI (%s) without the files this server needs (of --key %s, or a client identity for --mutual); use another directory",
			dir, strings.Join(exists.Files, ", "), kt)
	}
	if err != nil {
		return command.Usagef("--pki-dir %s: %v", dir, err)
	}
	st.opts.Identities = []server.IdentityFiles{{Cert: layout.ServerCerts[kt], Key: layout.ServerKeys[kt]}}
	st.caFile = layout.RootCert
	if withClient {
		st.clientCert, st.clientKey = layout.ClientCerts[0], layout.ClientKeys[0]
	}
	return nil
}

// startServe makes the server and its listeners (with opts.QUIC, a QUIC
// one on UDP at the TCP listener's address and port); the failures are
// the user's to fix (a bad file, a busy port).
func startServe(opts server.Options, logger *slog.Logger) (*server.Server, net.Listener, *server.QUICListener, error) {
	srv, err := server.NewFromOptions(opts, server.WithLogger(logger))
	if err != nil {
		return nil, nil, nil, command.Usagef("%s", command.UserText(err))
	}
	ln, err := server.Listen(context.Background(), opts.Listen)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, nil, nil, command.Usagef("--listen %s: address already in use; choose another port (or 127.0.0.1:0 for a free one)", opts.Listen)
		}
		return nil, nil, nil, command.Usagef("--listen %s: %v", opts.Listen, err)
	}
	if !opts.QUIC {
		return srv, ln, nil, nil
	}
	udp := ln.Addr().String()
	ql, err := srv.ListenQUIC(udp)
	if err != nil {
		ln.Close()
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, nil, nil, command.Usagef("--quic: UDP %s is already in use (the TCP port is free); choose another --listen port", udp)
		}
		return nil, nil, nil, command.Usagef("--quic: %v", err)
	}
	return srv, ln, ql, nil
}

// printBanner tells clients where the server listens and what they need
// to trust it and, with --mutual, to be trusted.
func (st serveSetup) printBanner(stdout io.Writer, srv *server.Server, addr net.Addr, ql *server.QUICListener) {
	var ids []string
	for _, id := range srv.Identities() {
		ids = append(ids, id.Key+" "+id.Source)
	}
	fmt.Fprintf(stdout, "listening on %s (TLS %s; key cache %s; identities: %s)\n",
		addr, strings.Join(st.opts.Versions, ", "), command.ShowOnOff(st.keyCache), strings.Join(ids, "; "))
	if ql != nil {
		fmt.Fprintf(stdout, "QUIC on UDP %s (TLS 1.3; tlsbench-ping and h3; early data: %s)\n", ql.Addr(), st.opts.EarlyDataPolicy)
	}
	if st.caFile != "" {
		fmt.Fprintf(stdout, "CA certificate: %s\n", st.caFile)
	}
	if st.clientCert != "" {
		fmt.Fprintf(stdout, "client certificate: %s\nclient key: %s\n", st.clientCert, st.clientKey)
		if inter := filepath.Join(filepath.Dir(st.caFile), pki.IntermediateCertFile); command.FileExists(inter) {
			// openssl s_client -cert sends the leaf alone.
			fmt.Fprintf(stdout, "openssl s_client also needs: -cert_chain %s\n", inter)
		}
	}
}

// ensurePKI reuses the PKI in dir when it has a server identity of kt
// (and a client identity when withClient), and writes a new one otherwise.
func ensurePKI(dir string, kt pki.KeyType, withClient bool) (*pki.Layout, error) {
	l := &pki.Layout{
		Dir:         dir,
		RootCert:    filepath.Join(dir, pki.RootCertFile),
		ServerCerts: map[pki.KeyType]string{kt: filepath.Join(dir, "server-"+string(kt)+".pem")},
		ServerKeys:  map[pki.KeyType]string{kt: filepath.Join(dir, "server-"+string(kt)+"-key.pem")},
		ClientCerts: []string{filepath.Join(dir, "client-1.pem")},
		ClientKeys:  []string{filepath.Join(dir, "client-1-key.pem")},
	}
	have := command.FileExists(l.RootCert) && command.FileExists(l.ServerCerts[kt]) && command.FileExists(l.ServerKeys[kt])
	if withClient {
		have = have && command.FileExists(l.ClientCerts[0]) && command.FileExists(l.ClientKeys[0])
	}
	if have {
		return l, nil
	}
	clients := 0
	if withClient {
		clients = 1
	}
	return pki.Init(pki.InitOptions{Dir: dir, ServerKeys: []pki.KeyType{kt}, Clients: clients})
}

// checkPrivatePKI refuses a --pki-dir that group or others may write, or
// whose private keys they may read, as OpenSSH refuses an open key: the
// server would serve with keys that are not private, or not its own.
func checkPrivatePKI(dir string, kt pki.KeyType, withClient bool) error {
	if err := pki.CheckPrivateDir(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // written below, private
		}
		return err
	}
	keys := []string{filepath.Join(dir, "server-"+string(kt)+"-key.pem")}
	if withClient {
		keys = append(keys, filepath.Join(dir, "client-1-key.pem"))
	}
	for _, k := range keys {
		if err := pki.CheckPrivateKeyFile(k); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// serveChild is the child server of tlsbench run: the server's own child
// main, on the inherited control channel.
func serveChild(ctx context.Context, fd int, stderr io.Writer) error {
	conn, err := command.ControlConn(fd)
	if err != nil {
		return err
	}
	return server.ChildMain(ctx, conn, command.ChildSelf(stderr))
}
