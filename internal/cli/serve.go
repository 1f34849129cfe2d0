package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/tlsconf"
)

const serveUsage = `Usage: tlsbench serve [flags]

Runs the built-in TLS server alone, so that other clients (openssl s_client,
s_time, another tlsbench) can be pointed at it. Without --pki-dir it writes a
fresh test PKI to a new temporary directory, removed when the server stops;
it prints the address and the path of the CA certificate clients must trust.
Connections are answered by echoing what the client sends; one that starts
with an HTTP/1.x request gets a short HTTP/1.1 response instead (for curl,
browsers and openssl s_time -www). Stop it with Ctrl-C (exit 0: the normal
way to end a server).

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

Flags:
`

func serveCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", stdout, nil)
	fs.usage = func(w io.Writer) {
		io.WriteString(w, serveUsage)
		fs.printFlags(w)
	}
	sf := defineServerFlags(fs, "127.0.0.1:8443", true)
	var (
		keyType      = fs.String("key", string(pki.ECDSAP256), "key type of the generated server certificate: "+keyTypeNames())
		clientCA     = fs.String("client-ca", "", "with --mutual: CA certificates `FILE` that client certificates must chain to (default: the PKI's own CA, which also issues client-1.pem)")
		keyCacheFlag = fs.String("key-cache", "on", "on: private keys decrypted once at load; off: on every full handshake (to measure what decrypting a PKCS#12 key costs)")
		pkiDir       = fs.String("pki-dir", "", "`DIR` for the test PKI (reused if it has one; default: a new temporary directory)")
		versions     []uint16
		controlFD    = fs.Int("control-fd", -1, "internal: serve as tlsbench run's child on this control channel")
		logLevel     = fs.String("log-level", "info", "what goes to stderr: error, warn (handshakes refused), info (also handshakes clients gave up), debug (also idle connections closed, HTTP requests)")
		idleTimeout  = fs.Duration("idle-timeout", server.DefaultIdleTimeout, "close a connection that sends nothing (or does not read what it is sent) for this long after its handshake")
	)
	versions = []uint16{tls.VersionTLS12, tls.VersionTLS13}
	fs.Var(listFlag[uint16]{&versions, tlsconf.ParseVersion, tlsconf.VersionName}, "tls", "TLS versions to accept: 1.2, 1.3")
	if err := fs.parse(args); err != nil {
		return err
	}
	if *controlFD >= 0 {
		return serveChild(ctx, *controlFD, stderr)
	}
	// A closed terminal (SIGHUP) stops the server as Ctrl-C does, so
	// that it still removes its temporary PKI.
	ctx, stopHup := signal.NotifyContext(ctx, syscall.SIGHUP)
	defer stopHup()
	level, err := parseLogLevel(*logLevel)
	if err != nil {
		return usagef("--log-level %q: %v", *logLevel, err)
	}
	if *idleTimeout <= 0 {
		return usagef("--idle-timeout %v: must be positive, e.g. 30s", *idleTimeout)
	}
	keyCache, err := parseOnOff(*keyCacheFlag)
	if err != nil {
		return usagef("--key-cache: %v", err)
	}
	kt, err := pki.ParseKeyType(*keyType)
	if err != nil {
		return usagef("--key: %v", err)
	}
	listen := sf.listen
	if _, _, err := net.SplitHostPort(listen); err != nil {
		return usagef("--listen %q: %v (want host:port, e.g. 127.0.0.1:8443)", listen, err)
	}
	if *clientCA != "" && !sf.mutual {
		return usagef("--client-ca applies to client certificates: add --mutual")
	}
	opts := server.Options{DisableKeyCache: !keyCache, IdleTimeout: *idleTimeout}
	if err := sf.apply(&opts, fs.isSet); err != nil {
		return err
	}
	caFile, clientCert, clientKey := "", "", ""
	if len(sf.identities) > 0 {
		// The identity files decide; nothing is generated.
		for _, name := range []string{"key", "pki-dir"} {
			if fs.isSet(name) {
				return usagef("--%s generates a test PKI; with --identity the files decide", name)
			}
		}
		if sf.mutual && *clientCA == "" {
			return usagef("--mutual with --identity needs the CA of the client certificates: --client-ca FILE")
		}
		if _, err := sf.loadIdentities(keyCache); err != nil {
			return err
		}
	} else {
		dir := *pkiDir
		if dir == "" {
			if dir, err = os.MkdirTemp("", "tlsbench-serve-"); err != nil {
				return fmt.Errorf("temporary PKI directory: %w", err)
			}
			// It holds a private key: it goes with the server, whether
			// the server stops, is interrupted (Ctrl-C, SIGTERM) or
			// fails to start.
			defer os.RemoveAll(dir)
		}
		layout, err := ensurePKI(dir, kt, sf.mutual && *clientCA == "")
		var exists *pki.ExistsError
		if errors.As(err, &exists) {
			return usagef("--pki-dir %s: already holds a PKI (%s) without the files this server needs (of --key %s, or a client identity for --mutual); use another directory",
				dir, strings.Join(exists.Files, ", "), kt)
		}
		if err != nil {
			return usagef("--pki-dir %s: %v", dir, err)
		}
		opts.Identities = []server.IdentityFiles{{Cert: layout.ServerCerts[kt], Key: layout.ServerKeys[kt]}}
		caFile = layout.RootCert
		if sf.mutual && *clientCA == "" {
			clientCert, clientKey = layout.ClientCerts[0], layout.ClientKeys[0]
		}
	}
	if sf.mutual {
		opts.ClientCA = *clientCA
		if opts.ClientCA == "" {
			opts.ClientCA = caFile
		}
	}
	for _, v := range versions {
		opts.Versions = append(opts.Versions, tlsconf.VersionName(v))
	}
	// Warnings worth a human's attention (why no identity fit a
	// ClientHello, a watched file that failed to reload) go to stderr.
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if opts.ClientCA != "" && !fileExists(opts.ClientCA) {
		return usagef("--client-ca %s: no such file", opts.ClientCA)
	}
	srv, err := server.NewFromOptions(opts, server.WithLogger(logger))
	if err != nil {
		return usagef("%s", serverText(err))
	}
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return usagef("--listen %s: address already in use; choose another port (or 127.0.0.1:0 for a free one)", listen)
		}
		return usagef("--listen %s: %v", listen, err)
	}
	var ids []string
	for _, id := range srv.Identities() {
		ids = append(ids, id.Key+" "+id.Source)
	}
	fmt.Fprintf(stdout, "listening on %s (TLS %s; key cache %s; identities: %s)\n",
		ln.Addr(), strings.Join(opts.Versions, ", "), showOnOff(keyCache), strings.Join(ids, "; "))
	if caFile != "" {
		fmt.Fprintf(stdout, "CA certificate: %s\n", caFile)
	}
	if clientCert != "" {
		fmt.Fprintf(stdout, "client certificate: %s\nclient key: %s\n", clientCert, clientKey)
		if inter := filepath.Join(filepath.Dir(caFile), pki.IntermediateCertFile); fileExists(inter) {
			// openssl s_client -cert sends the leaf alone.
			fmt.Fprintf(stdout, "openssl s_client also needs: -cert_chain %s\n", inter)
		}
	}
	err = srv.Serve(ctx, ln)
	c := srv.Counters()
	fmt.Fprintf(stderr, "served %d handshakes (%d resumed), %d failed", c.Handshakes, c.Resumed, sumCounts(c.Failures))
	if !keyCache {
		fmt.Fprintf(stderr, ", %d key decryptions", c.KeyDecryptions)
	}
	fmt.Fprintln(stderr)
	return err
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
	have := fileExists(l.RootCert) && fileExists(l.ServerCerts[kt]) && fileExists(l.ServerKeys[kt])
	if withClient {
		have = have && fileExists(l.ClientCerts[0]) && fileExists(l.ClientKeys[0])
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

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func sumCounts(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

func keyTypeNames() string {
	var names []string
	for _, k := range pki.KeyTypes() {
		names = append(names, string(k))
	}
	return strings.Join(names, ", ")
}

// serveChild is the child server of tlsbench run: configuration and
// counters travel over the inherited control channel.
func serveChild(ctx context.Context, fd int, stderr io.Writer) error {
	f := os.NewFile(uintptr(fd), "control")
	if f == nil {
		return usagef("--control-fd %d: not an open file descriptor", fd)
	}
	conn, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return usagef("--control-fd %d: %v", fd, err)
	}
	// Refused handshakes go to stderr, whose last lines explain a
	// server that dies during a run.
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return server.ServeChild(ctx, conn, server.WithLogger(logger))
}

// parseLogLevel reads a --log-level value.
func parseLogLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "error":
		return slog.LevelError, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "info":
		return slog.LevelInfo, nil
	case "debug":
		return slog.LevelDebug, nil
	}
	return 0, errors.New("must be error, warn, info or debug")
}
