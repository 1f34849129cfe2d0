package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/proxy"
)

// proxyPlan implements proxyMode.
func (st *runState) proxyPlan() (Proxy, childPlumbing) {
	p := st.plan
	return p.Proxy, childPlumbing{Executable: p.Executable, Args: p.ProxyArgs, Env: p.ChildEnv}
}

// proxyPlan implements proxyMode.
func (tr *tpRun) proxyPlan() (Proxy, childPlumbing) {
	p := tr.plan
	return p.Proxy, childPlumbing{Executable: p.Executable, Args: p.ProxyArgs, Env: p.ChildEnv}
}

// urlProxy implements proxyMode.
func (st *runState) urlProxy() *proxyRun { return st.url }

// urlProxy implements proxyMode.
func (tr *tpRun) urlProxy() *proxyRun { return tr.st.url }

// startBuiltinProxy implements proxyMode: the proxy verifies the built-in
// server with the run's CA (or the CA the given identities came with),
// an external target with its CA or the system roots. Handshake cases
// relay a few bytes only: the proxy's kTLS stays off.
func (st *runState) startBuiltinProxy(ctx context.Context, c *Case, origin string) (*proxyRun, error) {
	p := st.plan
	set := proxySettings{MintCache: true, KTLS: proxy.KTLSOff}
	configureProxy(c, &set)
	var originCA string
	insecure := false
	switch {
	case p.Target.Addr != "":
		originCA, insecure = p.Target.CAFile, p.Target.Insecure
	case len(p.Server.Identities) > 0:
		var err error
		if originCA, err = givenCAFile(p.Server.Identities, p.ServerCA, true); err != nil {
			return nil, err
		}
	default:
		var err error
		if originCA, err = st.writeRunCA(); err != nil {
			return nil, err
		}
	}
	_, plumb := st.proxyPlan()
	return startProxyChild(ctx, st.dir, set, originCA, insecure, origin, plumb, p.Notice)
}

// startBuiltinProxy implements proxyMode: the proxy verifies the built-in
// server with the run's CA, or the CA the given identities came with.
func (tr *tpRun) startBuiltinProxy(ctx context.Context, c *Case, origin string) (*proxyRun, error) {
	set := proxySettings{MintCache: true}
	configureProxy(c, &set)
	var originCA string
	var err error
	if ids := tr.plan.Server.Identities; len(ids) > 0 {
		originCA, err = givenCAFile(ids, "", false)
	} else {
		originCA, err = tr.st.writeRunCA()
	}
	if err != nil {
		return nil, err
	}
	_, plumb := tr.proxyPlan()
	return startProxyChild(ctx, tr.st.dir, set, originCA, false, origin, plumb, tr.plan.Notice)
}

// writeRunCA writes the run's CA certificate, which issues the built-in
// server's identity, for the proxy to verify it with.
func (st *runState) writeRunCA() (string, error) {
	file := filepath.Join(st.dir, "origin-ca.pem")
	if _, err := os.Stat(file); err == nil {
		return file, nil
	}
	return file, pki.WriteCertsPEM(file, st.ca.Root())
}

// startProxyChild starts the built-in proxy as a child process (tlsbench
// proxy, or ProxyArgs) on a loopback port, allowed to CONNECT to the
// origin's host and port only: a target on another machine is reached,
// nothing else is. Its CA lives in the run's directory, so that every
// restart mints with the same one (limited to that host too).
func startProxyChild(ctx context.Context, dir string, set proxySettings, originCA string, insecure bool, origin string, plumb childPlumbing, notice func(string)) (*proxyRun, error) {
	exe, env, self, err := plumb.program("the proxy")
	if err != nil {
		return nil, err
	}
	args := plumb.Args
	if args == nil {
		args = []string{proxy.ChildCommand}
	}
	o := proxy.Options{
		Listen:         defaultListen,
		AllowDest:      []string{originHost(origin)},
		ConnectPorts:   []int{originPort(origin)},
		PKIDir:         filepath.Join(dir, "proxy-pki"),
		OriginCA:       originCA,
		OriginInsecure: insecure,
		Buffer:         set.Buffer,
		ReadFill:       set.ReadFill,
		KTLS:           set.KTLS,
		MintCache:      set.MintCache,
		OriginSessions: set.OriginSessions,
		LogLevel:       "warn",
	}
	child, err := proxy.StartChild(ctx, proxy.ChildOptions{Path: exe, Args: args, Env: env, Proxy: o})
	if err != nil {
		return nil, notDispatched(err, self, args[0])
	}
	h := child.Hello()
	roots, err := loadRoots(plan.Settings.ProxyCA, h.CAFile)
	if err != nil {
		child.Close()
		return nil, err
	}
	if notice != nil {
		notice(fmt.Sprintf("built-in proxy pid %d on %s (buffer %d, read-fill %s, kTLS %s, mint cache %s, origin sessions %s)",
			child.PID(), h.Addr, set.Buffer, plan.OnOff(set.ReadFill), set.KTLS, plan.OnOff(set.MintCache), plan.OnOff(set.OriginSessions)))
	}
	return &proxyRun{url: ProxyBuiltin, addr: h.Addr, roots: roots, observer: ChildProxy{Child: child}, child: child, stop: child.Close}, nil
}
