package runner

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// ThroughputPlan is what a throughput run (tlsbench run --mode
// throughput) measures: the cross product of Versions x Ciphers x
// Directions x Buffers x Concurrency x KTLS, against the built-in server,
// each case moving Bytes per connection and direction, or data for
// Duration, per iteration.
type ThroughputPlan struct {
	Versions    []uint16
	Ciphers     []string      // ktls.CipherAES128GCM, ...
	Buffers     []int         // application read/write sizes in bytes
	KTLS        []ktls.Mode   // off, auto, on
	Directions  []string      // loadgen.DirectionDownload, ...
	Concurrency []int         // parallel connections
	Bytes       int64         // per connection and direction per iteration
	Duration    time.Duration // per iteration; exactly one of Bytes and Duration
	// Source is a file the server sends instead of the generated stream
	// (--source file:PATH; download only).
	Source string
	// KeyType of the server's certificate (default DefaultKeyType).
	KeyType pki.KeyType

	Iterations  int
	Warmup      int
	CaseTime    time.Duration // measured time limit per case (0: none)
	ConnTimeout time.Duration

	// Server is the built-in server's base configuration (listen address,
	// handshake timeout); the run adds the identity, kTLS and the source.
	Server server.Options
	// InProcess runs the server in this process instead of a child: no
	// separate server CPU, for tests.
	InProcess bool
	// Executable, ChildArgs and ChildEnv start the child server as in Plan.
	Executable string
	ChildArgs  []string
	ChildEnv   []string

	Env      *results.Env
	Progress func(ThroughputProgress)
	Notice   func(string)
}

// ThroughputProgress reports progress within a throughput run.
type ThroughputProgress struct {
	Index, Total int // 1-based case index
	loadgen.ThroughputProgress
}

// ThroughputCase is one cell of the throughput matrix.
type ThroughputCase struct {
	Name        string
	Version     uint16
	Cipher      string
	Buffer      int
	Direction   string
	KTLS        ktls.Mode
	Concurrency int
	// NotRunnable says why the case cannot be measured (TLS 1.3
	// AES-256-GCM between two Go endpoints); it is reported, not run.
	NotRunnable string
}

// Validate checks the plan before any work is done. Errors name the flag
// at fault and the fix. It probes the kernel once: --ktls on on a kernel
// without kTLS is refused here, before the run starts.
func (p *ThroughputPlan) Validate() error {
	if len(p.Versions) == 0 {
		return errors.New("--tls: no TLS version given")
	}
	for _, v := range p.Versions {
		if v != tls.VersionTLS12 && v != tls.VersionTLS13 {
			return fmt.Errorf("--tls: %s: throughput cases run TLS 1.2 or 1.3", tls.VersionName(v))
		}
	}
	if len(p.Ciphers) == 0 {
		return errors.New("--cipher: no cipher given (aes128gcm, aes256gcm, chacha20poly1305)")
	}
	for _, c := range p.Ciphers {
		if _, err := ParseCipher(c); err != nil {
			return fmt.Errorf("--cipher: %v", err)
		}
	}
	if len(p.Buffers) == 0 {
		return errors.New("--buffer: no buffer size given (e.g. 4k,16k,64k)")
	}
	for _, b := range p.Buffers {
		if b < 1 || b > server.MaxBulkBuffer {
			return fmt.Errorf("--buffer %d: must be between 1 byte and %s", b, SizeName(server.MaxBulkBuffer))
		}
	}
	if len(p.KTLS) == 0 {
		return errors.New("--ktls: give off, auto or on (or a list, e.g. off,on)")
	}
	if len(p.Directions) == 0 {
		return errors.New("--direction: give download, upload or both")
	}
	for _, d := range p.Directions {
		if _, err := ParseDirection(d); err != nil {
			return fmt.Errorf("--direction: %v", err)
		}
	}
	if len(p.Concurrency) == 0 {
		return errors.New("--concurrency: no level given")
	}
	for _, c := range p.Concurrency {
		if c < 1 || c > 1024 {
			return fmt.Errorf("--concurrency %d: must be between 1 and 1024 parallel connections", c)
		}
	}
	switch {
	case p.Bytes > 0 && p.Duration > 0:
		return errors.New("--bytes and --duration both set: give one (bytes per connection and direction, or time per iteration)")
	case p.Bytes < 0:
		return fmt.Errorf("--bytes %d: must be positive", p.Bytes)
	case p.Duration < 0:
		return fmt.Errorf("--duration %v: must be positive", p.Duration)
	case p.Bytes == 0 && p.Duration == 0:
		return errors.New("--bytes or --duration: give how much each iteration moves (e.g. --bytes 64MiB or --duration 2s)")
	}
	if p.Iterations < 1 {
		return fmt.Errorf("--iterations %d: must be at least 1", p.Iterations)
	}
	if p.Warmup < 0 {
		return fmt.Errorf("--warmup %d: must be 0 or more", p.Warmup)
	}
	if p.Source != "" {
		fi, err := os.Stat(p.Source)
		switch {
		case err != nil:
			return fmt.Errorf("--source file:%s: %v", p.Source, err)
		case !fi.Mode().IsRegular() || fi.Size() == 0:
			return fmt.Errorf("--source file:%s: not a non-empty regular file", p.Source)
		}
		for _, d := range p.Directions {
			if d != loadgen.DirectionDownload {
				return fmt.Errorf("--source file:%s is sent by the server: use --direction download (not %s)", p.Source, d)
			}
		}
	}
	if p.Server.Mutual {
		return errors.New("--mutual applies to handshake cases; throughput cases run without client certificates")
	}
	for _, m := range p.KTLS {
		if m == ktls.ModeOn {
			if _, _, err := m.Decide(); err != nil {
				return fmt.Errorf("%v; use --ktls auto to fall back to user-space TLS, or run where the kernel has kTLS (scripts/ktls-vm-test.sh)", err)
			}
		}
	}
	cases := p.Cases()
	runnable := 0
	for _, c := range cases {
		if c.NotRunnable == "" {
			runnable++
		}
	}
	if runnable == 0 {
		return fmt.Errorf("--tls/--cipher: no case can run: %s", cases[0].NotRunnable)
	}
	return nil
}

// Cases expands the matrix in the order it runs: version, cipher,
// direction, buffer, concurrency, and kTLS innermost, so that the kTLS
// variants of a cell sit next to each other in the report.
func (p *ThroughputPlan) Cases() []ThroughputCase {
	var out []ThroughputCase
	for _, v := range p.Versions {
		for _, ci := range p.Ciphers {
			notRunnable := ""
			if _, err := loadgen.ThroughputConfig(&tls.Config{}, v, ci); errors.Is(err, ktls.ErrTLS13AES256) {
				notRunnable = "not runnable: TLS 1.3 with AES-256-GCM cannot be negotiated between two Go crypto/tls endpoints (Go ignores CipherSuites in TLS 1.3 and never prefers TLS_AES_256_GCM_SHA384); not measured, no other cipher measured in its place"
			}
			for _, d := range p.Directions {
				for _, b := range p.Buffers {
					for _, c := range p.Concurrency {
						for _, m := range p.KTLS {
							tc := ThroughputCase{Version: v, Cipher: ci, Buffer: b, Direction: d, KTLS: m, Concurrency: c, NotRunnable: notRunnable}
							tc.Name = tc.name(p.Source != "")
							out = append(out, tc)
						}
					}
				}
			}
		}
	}
	return out
}

// name is the case's stable name, e.g.
// throughput/tls1.3/aes128gcm/16k/download/ktls-on/c1, with /file after
// the direction for a file source. The kTLS segment is the mode asked
// for; what took effect is in ktls_tx and ktls_rx.
func (c ThroughputCase) name(file bool) string {
	parts := []string{"throughput", "tls" + tlsconf.VersionName(c.Version), c.Cipher, SizeName(c.Buffer), c.Direction}
	if file {
		parts = append(parts, "file")
	}
	parts = append(parts, "ktls-"+c.KTLS.String(), fmt.Sprintf("c%d", c.Concurrency))
	return strings.Join(parts, "/")
}

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

// ParseSize reads a byte size: a number with an optional binary suffix,
// k/KiB, m/MiB or g/GiB (4k = 4096), as --buffer and --bytes take it.
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSuffix(t, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<50)/mult {
		return 0, fmt.Errorf("%q is not a size (e.g. 4096, 16k, 64MiB, 1g)", s)
	}
	return n * mult, nil
}

// ParseBuffer reads one --buffer size (1 byte to 1 MiB).
func ParseBuffer(s string) (int, error) {
	n, err := ParseSize(s)
	if err != nil {
		return 0, err
	}
	if n > server.MaxBulkBuffer {
		return 0, fmt.Errorf("%s is larger than the largest buffer, %s", s, SizeName(server.MaxBulkBuffer))
	}
	return int(n), nil
}

// ParseCipher reads one --cipher name.
func ParseCipher(s string) (string, error) {
	switch s {
	case ktls.CipherAES128GCM, ktls.CipherAES256GCM, ktls.CipherChaCha20Poly1305:
		return s, nil
	}
	return "", fmt.Errorf("%q is not a cipher (want %s, %s or %s)", s, ktls.CipherAES128GCM, ktls.CipherAES256GCM, ktls.CipherChaCha20Poly1305)
}

// ParseDirection reads one --direction.
func ParseDirection(s string) (string, error) {
	switch s {
	case loadgen.DirectionDownload, loadgen.DirectionUpload, loadgen.DirectionBoth:
		return s, nil
	}
	return "", fmt.Errorf("%q is not a direction (want download, upload or both)", s)
}

// ParseSource reads --source: "file:PATH" (the only kind so far).
func ParseSource(s string) (string, error) {
	path, ok := strings.CutPrefix(s, "file:")
	if !ok || path == "" {
		return "", fmt.Errorf("%q: want file:PATH", s)
	}
	return path, nil
}

// RunThroughput measures every case of p against the built-in server and
// passes each record to emit as soon as it is measured. A case that is not
// runnable is emitted as a record with no measurements and a note that
// says why. Cases that fail (corrupted data, a failed connection, --ktls
// on refused by one end) are collected into *FailedCases while the others
// run; ctx's end stops the run with the case in progress emitted.
func RunThroughput(ctx context.Context, p ThroughputPlan, emit func(*results.Record) error) error {
	if err := p.Validate(); err != nil {
		return err
	}
	env := results.CurrentEnv()
	if p.Env != nil {
		env = *p.Env
	}
	kt := p.KeyType
	if kt == "" {
		kt = DefaultKeyType
	}
	srv, err := p.startServer(ctx, kt)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &ServerStartError{Err: err}
	}
	defer srv.close()

	cases := p.Cases()
	var failed []error
	for i, c := range cases {
		base := results.Record{KeyType: string(kt), Env: env}
		if c.NotRunnable != "" {
			rec := base
			rec.Name, rec.Kind, rec.TLSVersion = c.Name, results.KindThroughput, tlsconf.VersionName(c.Version)
			rec.Cipher, rec.BufferBytes, rec.Direction, rec.Concurrency = c.Cipher, c.Buffer, c.Direction, c.Concurrency
			rec.Transport = TransportTCP
			rec.Notes = []string{c.NotRunnable}
			if p.Notice != nil {
				p.Notice(c.Name + ": " + c.NotRunnable)
			}
			if err := emit(&rec); err != nil {
				return err
			}
			continue
		}
		tc := loadgen.ThroughputCase{
			Name: c.Name, Version: c.Version, Cipher: c.Cipher, Buffer: c.Buffer, Direction: c.Direction,
			Bytes: p.Bytes, Duration: p.Duration, Concurrency: c.Concurrency,
			Iterations: p.Iterations, Warmup: p.Warmup, MaxDuration: p.CaseTime,
			KTLS: c.KTLS, Client: srv.client, Dialer: srv.dialer, Server: srv.observer,
			ConnTimeout: p.ConnTimeout, Record: base, Words: flagWords,
		}
		if p.Source != "" {
			tc.Source = &loadgen.FileSource{Path: p.Source, Index: 1}
		}
		if p.Progress != nil {
			index := i + 1
			tc.Progress = func(pr loadgen.ThroughputProgress) {
				p.Progress(ThroughputProgress{Index: index, Total: len(cases), ThroughputProgress: pr})
			}
		}
		rec, err := loadgen.RunThroughput(ctx, tc)
		if rec != nil {
			if eerr := emit(rec); eerr != nil {
				return eerr
			}
		}
		if err != nil {
			var te *loadgen.ThroughputError
			if ctx.Err() == nil && errors.As(err, &te) {
				if p.Notice != nil {
					p.Notice("FAILED " + err.Error())
				}
				failed = append(failed, err)
				continue
			}
			return err
		}
	}
	if err := srv.close(); err != nil && ctx.Err() == nil {
		return err
	}
	if len(failed) > 0 {
		return &FailedCases{Errs: failed}
	}
	return nil
}

// tpServer is the built-in server of a throughput run.
type tpServer struct {
	client   *tls.Config
	dialer   loadgen.Dialer
	observer loadgen.ServerObserver
	closed   bool
	stop     func() error
}

func (s *tpServer) close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	return s.stop()
}

// wantsKTLS reports whether any case may switch to kTLS, in which case
// the server is started ready for it (server.WithKTLS); otherwise it runs
// without the key log and the record-exact reader.
func (p *ThroughputPlan) wantsKTLS() bool {
	for _, m := range p.KTLS {
		if use, _, _ := m.Decide(); use {
			return true
		}
	}
	return false
}

// startServer issues the server's identity in a private directory and
// starts the built-in server (a child process unless InProcess).
func (p *ThroughputPlan) startServer(ctx context.Context, kt pki.KeyType) (*tpServer, error) {
	ca, err := pki.NewCA()
	if err != nil {
		return nil, err
	}
	id, err := ca.IssueServer(nil, pki.WithKeyType(kt))
	if err != nil {
		return nil, fmt.Errorf("server identity (%s): %w", kt, err)
	}
	dir, err := os.MkdirTemp("", "tlsbench-run-")
	if err != nil {
		return nil, fmt.Errorf("temporary directory: %w", err)
	}
	removeDir := func() error { return os.RemoveAll(dir) }
	files := server.IdentityFiles{Cert: filepath.Join(dir, "server.pem"), Key: filepath.Join(dir, "server-key.pem")}
	if err := pki.WriteCertsPEM(files.Cert, id.Chain...); err != nil {
		removeDir()
		return nil, err
	}
	if err := pki.WriteKeyPEM(files.Key, id.Key); err != nil {
		removeDir()
		return nil, err
	}
	opts := p.Server
	if opts.Listen == "" {
		opts.Listen = "127.0.0.1:0"
	}
	opts.Identities = []server.IdentityFiles{files}
	opts.KTLS = p.wantsKTLS()
	if p.Source != "" {
		abs, err := filepath.Abs(p.Source)
		if err != nil {
			removeDir()
			return nil, err
		}
		opts.Sources = []string{abs}
	}
	s := &tpServer{client: tlsconf.Client(tlsconf.ClientOptions{RootCAs: ca.Pool(), ServerName: "localhost"})}

	if p.InProcess {
		srv, err := server.NewFromOptions(opts)
		if err != nil {
			removeDir()
			return nil, err
		}
		ln, err := net.Listen("tcp", opts.Listen)
		if err != nil {
			removeDir()
			return nil, err
		}
		sctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- srv.Serve(sctx, ln) }()
		s.dialer = loadgen.TCPDialer{Addr: ln.Addr().String()}
		s.observer = InProcessServer{Server: srv}
		s.stop = func() error {
			cancel()
			err := <-done
			return errors.Join(err, removeDir())
		}
		return s, nil
	}

	exe := p.Executable
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			removeDir()
			return nil, fmt.Errorf("finding tlsbench to start the server: %w", err)
		}
	}
	args := p.ChildArgs
	if args == nil {
		args = []string{"serve"}
	}
	child, err := server.StartChild(ctx, server.ChildOptions{Path: exe, Args: args, Env: p.ChildEnv, Server: opts})
	if err != nil {
		removeDir()
		return nil, err
	}
	if p.Notice != nil {
		p.Notice(fmt.Sprintf("built-in server (%s, kTLS-ready %v) pid %d on %s", kt, opts.KTLS, child.PID(), child.Hello().Addr))
	}
	s.dialer = loadgen.TCPDialer{Addr: child.Hello().Addr}
	s.observer = ChildServer{Child: child}
	s.stop = func() error { return errors.Join(child.Close(), removeDir()) }
	return s, nil
}
