package runner

import (
	"context"
	"errors"
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

func (st *runState) startBuiltinProxy(ctx context.Context, c *Case, origin string) (*proxyRun, error) {
	return nil, errors.New("not available yet")
}

func (tr *tpRun) startBuiltinProxy(ctx context.Context, c *Case, origin string) (*proxyRun, error) {
	return nil, errors.New("not available yet")
}

// urlProxy implements proxyMode.
func (st *runState) urlProxy() *proxyRun { return st.url }

// urlProxy implements proxyMode.
func (tr *tpRun) urlProxy() *proxyRun { return tr.st.url }
