package runner

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/usage"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/results"
)

// ProxyStartError is a proxy that could not be started (the built-in
// one) or reached (one given by URL) before the run's first case through
// it. It is a failure of the run (exit 1), not of its flags.
type ProxyStartError struct {
	URL string
	Err error
}

func (e *ProxyStartError) Error() string {
	if e.URL == ProxyBuiltin {
		return "starting the built-in proxy: " + e.Err.Error()
	}
	return "proxy " + e.URL + ": " + e.Err.Error()
}

func (e *ProxyStartError) Unwrap() error { return e.Err }

// ProxyDiedError is a case during which the built-in proxy's process
// ended: the case fails with how it ended and its last words (Err, a
// *proxy.ExitError that names the built-in proxy), and the next case
// starts a new proxy.
type ProxyDiedError struct {
	Case string
	Err  error
}

func (e *ProxyDiedError) Error() string {
	return fmt.Sprintf("case %s: %v", e.Case, e.Err)
}

func (e *ProxyDiedError) Unwrap() error { return e.Err }

// proxyRun is the proxy of a run of cases: the built-in one in a child
// process (restarted when a proxy axis changes), or one given by URL.
type proxyRun struct {
	url      string
	addr     string         // host:port the client dials
	roots    *x509.CertPool // the CA of its minted certificates
	observer measure.ProxyObserver
	// child is the built-in proxy's process: watched during a case;
	// nil for a URL proxy.
	child watchedProcess
	// dialer reaches the origin through the proxy (a *childDialer for
	// the built-in proxy, watched like the child server's).
	dialer client.Dialer
	stop   func() error
	// settings it was started with, by the case that started it.
	started *Case
}

// watchedProcess is a child process whose death ends a case.
type watchedProcess interface {
	Done() <-chan struct{}
	Exited() error
}

func (p *proxyRun) close() error {
	if p == nil || p.stop == nil {
		return nil
	}
	stop := p.stop
	p.stop = nil
	err := stop()
	if p.child != nil && p.child.Exited() != nil {
		// A proxy that died during a case failed that case already
		// (ProxyDiedError): its exit is no failure of stopping it.
		return nil
	}
	return err
}

// loadRoots reads the CA certificates the client trusts for the proxy's
// minted certificates.
func loadRoots(setting *plan.Setting, file string) (*x509.CertPool, error) {
	certs, err := pki.LoadCertsPEM(file)
	if err != nil {
		return nil, plan.Errorf(setting, file, "%v", err)
	}
	pool := x509.NewCertPool()
	for _, c := range certs {
		pool.AddCert(c)
	}
	return pool, nil
}

// proxyReachTimeout bounds the check that a proxy given by URL answers.
const proxyReachTimeout = 5 * time.Second

// prepareProxy is done when a run begins, before any server starts: a
// proxy given by URL is checked then (nil for none or the built-in one).
func prepareProxy(ctx context.Context, p Proxy) (*proxyRun, error) {
	if p.URL == "" || p.builtin() {
		return nil, nil
	}
	pr, err := startURLProxy(ctx, p)
	if err != nil {
		return nil, &ProxyStartError{URL: p.URL, Err: err}
	}
	return pr, nil
}

// startURLProxy prepares for a proxy given by URL: its CA, a check that
// it accepts connections, and its CPU when PID is given.
func startURLProxy(ctx context.Context, p Proxy) (*proxyRun, error) {
	roots, err := loadRoots(plan.Settings.ProxyCA, p.CAFile)
	if err != nil {
		return nil, err
	}
	addr := p.addr()
	d := net.Dialer{Timeout: proxyReachTimeout}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		var se *os.SyscallError
		if errors.As(err, &se) {
			err = se.Err
		}
		return nil, fmt.Errorf("unreachable: %v (is it running, and listening on %s?)", err, addr)
	}
	conn.Close()
	pr := &proxyRun{url: p.URL, addr: addr, roots: roots}
	if p.PID > 0 {
		obs := measure.ProxyCPU{PID: p.PID}
		if _, err := obs.Snapshot(); err != nil {
			return nil, plan.Errorf(plan.Settings.ProxyPID, p.PID, "%v", err)
		}
		// A pid of another program would report its CPU as the
		// proxy's: where it can be checked, it must listen on the port.
		_, portText, _ := net.SplitHostPort(addr)
		port, _ := strconv.Atoi(portText)
		if owns, err := usage.ListensOn(p.PID, port); err == nil && !owns {
			return nil, plan.Errorf(plan.Settings.ProxyPID, p.PID, "neither that process nor its children listen on port %d of %s %s: give the pid of the proxy, or leave it out", port, plan.Settings.Proxy, p.URL)
		}
		pr.observer = obs
	}
	return pr, nil
}

// originTarget is what the client asks the proxy to CONNECT to: the
// built-in server by the name its certificate holds (localhost), or the
// target as given.
func originTarget(serverAddr string, target string) string {
	if target != "" {
		return target
	}
	_, port, _ := net.SplitHostPort(serverAddr)
	return net.JoinHostPort("localhost", port)
}

// originHost is the host of the origin the proxy must allow CONNECT to.
func originHost(origin string) string {
	host, _, _ := net.SplitHostPort(origin)
	return host
}

// originPort is the port of the origin the proxy must allow CONNECT to.
func originPort(origin string) int {
	_, port, _ := net.SplitHostPort(origin)
	n, _ := strconv.Atoi(port)
	return n
}

// proxyMode is what the run of one mode adds to start its proxy.
type proxyMode interface {
	// proxyPlan is the run's proxy, and how the built-in one starts.
	proxyPlan() (Proxy, childPlumbing)
	// urlProxy is the proxy given by URL, prepared when the run began.
	urlProxy() *proxyRun
	// startBuiltinProxy starts the built-in proxy for c against the
	// origin (host:port it must allow).
	startBuiltinProxy(ctx context.Context, c *Case, origin string) (*proxyRun, error)
}

// ensureProxy gives srv the proxy case c goes through: the one it has
// when c agrees with it on every proxy axis, else a new one.
func ensureProxy(ctx context.Context, m mode, srv *builtin, c *Case) error {
	if c.Proxy == "" {
		return nil
	}
	if srv.proxy != nil && plan.SameProxy(srv.proxy.started, c) && (srv.proxy.child == nil || srv.proxy.child.Exited() == nil) {
		return nil
	}
	if err := srv.proxy.close(); err != nil && ctx.Err() == nil && srv.proxy.child != nil && srv.proxy.child.Exited() == nil {
		return &ProxyStartError{URL: c.Proxy, Err: fmt.Errorf("stopping the previous proxy: %w", err)}
	}
	srv.proxy = nil
	pm := m.(proxyMode)
	p, _ := pm.proxyPlan()
	var pr *proxyRun
	var err error
	if p.builtin() {
		pr, err = pm.startBuiltinProxy(ctx, c, srv.origin)
	} else {
		shared := *pm.urlProxy()
		pr = &shared
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &ProxyStartError{URL: c.Proxy, Err: err}
	}
	pr.started = c
	var d client.Dialer = client.ProxyDialer{Proxy: pr.addr, Target: srv.origin}
	if pr.child != nil {
		d = &childDialer{Dialer: d, child: pr.child}
	}
	pr.dialer = d
	srv.proxy = pr
	return nil
}

// caseDialer is how a case reaches its server: through the proxy when it
// has one.
func (b *builtin) caseDialer() client.Dialer {
	if b.proxy == nil {
		return b.dialer
	}
	return b.proxy.dialer
}

// proxyObserver is the case's proxy observer (nil without one, or for a
// URL proxy whose process is not given).
func (b *builtin) proxyObserver() measure.ProxyObserver {
	if b.proxy == nil || b.proxy.observer == nil {
		return nil
	}
	return b.proxy.observer
}

// proxyNote says, in a case through a proxy, what each leg of a
// handshake case did (the built-in proxy resumes its origin sessions only
// in resume cases), and what tlsbench cannot see of a proxy given by URL.
func proxyNote(c *Case, rec *results.Record) {
	if c.Proxy == "" || rec == nil {
		return
	}
	handshakes := c.Mode == ModeHandshake
	switch {
	case c.Proxy == ProxyBuiltin && handshakes && c.Resume:
		rec.Notes = append(rec.Notes, "through the built-in proxy both legs resume: the client its sessions with the proxy, the proxy its own with the server")
	case c.Proxy == ProxyBuiltin && handshakes:
		rec.Notes = append(rec.Notes, "through the built-in proxy both legs make full handshakes: the proxy keeps no sessions with the server in a full case")
	case c.Proxy != ProxyBuiltin:
		note := "proxy given by URL: its relay modes, mints and resumption are not known to tlsbench; it verifies the server with its own configuration"
		if handshakes {
			note += "; its leg to the server is its own: whether it resumes its sessions there is its configuration's, whatever the case's resume"
		}
		rec.Notes = append(rec.Notes, note)
	}
}
