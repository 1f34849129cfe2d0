package runner

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// FailedCases is returned when some cases could not be measured (their
// resumption was below the minimum, or every handshake failed) while the
// others were. It is a benchmark failure, not a usage error.
type FailedCases struct{ Errs []error }

func (f *FailedCases) Error() string {
	msgs := make([]string, len(f.Errs))
	for i, e := range f.Errs {
		msgs[i] = e.Error()
	}
	return fmt.Sprintf("%d case(s) failed: %s", len(f.Errs), strings.Join(msgs, "; "))
}

// Unwrap lets errors.As find the individual failures.
func (f *FailedCases) Unwrap() []error { return f.Errs }

// ServerStartError is a built-in server that could not start.
type ServerStartError struct{ Err error }

func (e *ServerStartError) Error() string { return "starting the built-in server: " + e.Err.Error() }

func (e *ServerStartError) Unwrap() error { return e.Err }

// Run measures every case of p against the built-in server and passes each
// record to emit as soon as it is measured. When ctx ends, the case in
// progress is emitted with what it measured and Run returns ctx's error.
func Run(ctx context.Context, p Plan, emit func(*results.Record) error) error {
	if err := p.Validate(); err != nil {
		return err
	}
	env := results.CurrentEnv()
	if p.Env != nil {
		env = *p.Env
	}
	dir, err := os.MkdirTemp("", "tlsbench-pki-")
	if err != nil {
		return fmt.Errorf("temporary PKI directory: %w", err)
	}
	defer os.RemoveAll(dir)
	ca, err := pki.NewCA()
	if err != nil {
		return err
	}
	roots := ca.Pool()

	cases := p.Cases()
	var failed []error
	for i := 0; i < len(cases); {
		// The cases of one server: same key type and transport.
		j := i
		for j < len(cases) && cases[j].KeyType == cases[i].KeyType && cases[j].Transport == cases[i].Transport {
			j++
		}
		srv, err := startServer(ctx, &p, ca, dir, cases[i].KeyType, cases[i].Transport)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return &ServerStartError{Err: err}
		}
		for k := i; k < j; k++ {
			rec, err := runCase(ctx, &p, cases[k], k+1, len(cases), srv, roots, env)
			if rec != nil {
				if eerr := emit(rec); eerr != nil {
					srv.close()
					return eerr
				}
			}
			if err != nil {
				var re *loadgen.ResumptionError
				var ce *loadgen.CaseError
				if ctx.Err() == nil && (errors.As(err, &re) || errors.As(err, &ce)) {
					failed = append(failed, err)
					continue
				}
				srv.close()
				return err
			}
		}
		if err := srv.close(); err != nil && ctx.Err() == nil {
			return err
		}
		i = j
	}
	if len(failed) > 0 {
		return &FailedCases{Errs: failed}
	}
	return nil
}

// builtin is a running built-in server, in a child process or in this one.
type builtin struct {
	dialer   loadgen.Dialer
	observer loadgen.ServerObserver
	close    func() error
}

func startServer(ctx context.Context, p *Plan, ca *pki.CA, dir string, kt pki.KeyType, transport string) (*builtin, error) {
	id, err := ca.IssueServer(nil, pki.WithKeyType(kt))
	if err != nil {
		return nil, fmt.Errorf("server identity (%s): %w", kt, err)
	}
	files := server.IdentityFiles{
		Cert: filepath.Join(dir, "server-"+string(kt)+".pem"),
		Key:  filepath.Join(dir, "server-"+string(kt)+"-key.pem"),
	}
	if err := pki.WriteCertsPEM(files.Cert, id.Chain...); err != nil {
		return nil, err
	}
	if err := pki.WriteKeyPEM(files.Key, id.Key); err != nil {
		return nil, err
	}
	opts := server.Options{Listen: "127.0.0.1:0", Identities: []server.IdentityFiles{files}}

	if transport == TransportMemory {
		sctx, cancel := context.WithCancel(ctx)
		srv, err := server.NewFromOptions(opts)
		if err != nil {
			cancel()
			return nil, err
		}
		return &builtin{
			dialer:   loadgen.MemoryDialer{Server: srv, Ctx: sctx},
			observer: loadgen.InProcessServer{Server: srv},
			close:    func() error { cancel(); return nil },
		}, nil
	}

	exe := p.Executable
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("finding tlsbench to start the server: %w", err)
		}
	}
	args := p.ChildArgs
	if args == nil {
		args = []string{"serve"}
	}
	child, err := server.StartChild(ctx, server.ChildOptions{Path: exe, Args: args, Env: p.ChildEnv, Server: opts})
	if err != nil {
		return nil, err
	}
	if p.Notice != nil {
		p.Notice(fmt.Sprintf("built-in server (%s) pid %d on %s", kt, child.PID(), child.Hello().Addr))
	}
	return &builtin{
		dialer:   loadgen.TCPDialer{Addr: child.Hello().Addr},
		observer: loadgen.ChildServer{Child: child},
		close:    child.Close,
	}, nil
}

func runCase(ctx context.Context, p *Plan, c Case, index, total int, srv *builtin, roots *x509.CertPool, env results.Env) (*results.Record, error) {
	co := tlsconf.ClientOptions{Version: c.Version, RootCAs: roots, ServerName: "localhost"}
	if c.Group != 0 {
		co.Groups = []tls.CurveID{c.Group}
	}
	if c.Resume {
		co.Sessions = tlsconf.NewSessionPool(c.Concurrency, tlsconf.ReuseMulti).Scoped("")
	}
	hc := loadgen.HandshakeCase{
		Name:          c.Name,
		Version:       c.Version,
		Resume:        c.Resume,
		Concurrency:   c.Concurrency,
		Handshakes:    p.Handshakes,
		Iterations:    p.Iterations,
		Warmup:        p.Warmup,
		MaxDuration:   p.CaseTime,
		MinResumption: p.MinResumption,
		ConnTimeout:   p.ConnTimeout,
		Clients:       []*tls.Config{tlsconf.Client(co)},
		Dialer:        srv.dialer,
		Server:        srv.observer,
		Record:        results.Record{KeyType: string(c.KeyType), Env: env},
	}
	if p.MinResumption == 0 {
		hc.MinResumption = -1 // 0 means "do not check" at this level
	}
	if p.Progress != nil {
		hc.Progress = func(pr loadgen.Progress) {
			p.Progress(CaseProgress{Index: index, Total: total, Progress: pr})
		}
	}
	return loadgen.RunHandshakes(ctx, hc)
}
