package runner

import (
	"context"
	"crypto/tls"
	"net"
	"slices"

	"github.com/tlsbench/tlsbench/client"
)

// resolveRequests asks each side's target which request it answers,
// once per run and target, before the first case that needs it runs its
// warm-up: the run's request is auto (a target and no request given).
// Sides that answer different requests get one they all answer, when
// there is one: an interleaved run compares the same work. The choice is
// printed once with its reasons.
func (st *runState) resolveRequests(ctx context.Context, c *Case, specs []sideSpec, servers []*builtin) {
	p := st.plan
	if p.request() != client.RequestAuto || c.Transport == TransportQUIC {
		return
	}
	var addrs []string
	var opts []client.DetectOptions
	var found []client.Detection
	for i := range specs {
		addr := specs[i].target.Addr
		if _, done := st.detected[addr]; done || addr == "" {
			continue
		}
		o := client.DetectOptions{
			Dialer: servers[i].caseDialer(), Config: st.detectConfig(c, servers[i]),
			Host: st.httpHost(&specs[i]), ConnTimeout: p.ConnTimeout,
		}
		addrs, opts = append(addrs, addr), append(opts, o)
		found = append(found, client.DetectRequest(ctx, o))
	}
	if len(found) > 1 {
		client.AgreeRequest(ctx, opts, found)
	}
	if ctx.Err() != nil {
		return // the run is ending: its cases say so
	}
	if st.detected == nil {
		st.detected = map[string]client.Detection{}
	}
	for i, d := range found {
		st.detected[addrs[i]] = d
		p.log(requestNotice(addrs[i], d, p.Words.Names["Request"]))
	}
}

// requestNotice is the line that says which request a target gets.
func requestNotice(addr string, d client.Detection, flag string) string {
	if flag == "" {
		flag = "the request setting"
	}
	return "request for " + addr + ": " + d.String() + "; " + flag + " chooses another"
}

// requestOf is the request side sp's target gets: the one asked for, or
// the one found for it.
func (st *runState) requestOf(sp *sideSpec) (r client.Request, auto bool) {
	r = st.plan.request()
	if r != client.RequestAuto {
		return r, false
	}
	if d, ok := st.detected[sp.target.Addr]; ok {
		return d.Request, true
	}
	return client.RequestHTTP, true // not asked: the run ended first
}

// targetExchange is the exchange with side sp's target, and the request
// it records.
func (st *runState) targetExchange(sp *sideSpec) (client.Exchange, client.Request, bool) {
	r, auto := st.requestOf(sp)
	if d, ok := st.detected[sp.target.Addr]; ok && auto {
		return d.Exchange(st.httpHost(sp)), r, auto
	}
	return r.Exchange(st.httpHost(sp)), r, auto
}

// httpHost is the Host of HTTP requests to sp's target: the server
// name, or the address when the name is an IP address.
func (st *runState) httpHost(sp *sideSpec) string {
	if net.ParseIP(st.serverName) != nil {
		return sp.target.Addr
	}
	return st.serverName
}

// detectConfig is the client configuration the detection connects
// with: case c's, without its sessions, over every version the plan
// asks for.
func (st *runState) detectConfig(c *Case, srv *builtin) *tls.Config {
	cfgs, _ := st.clients(c, srv, true)
	cfg := cfgs[0].Clone()
	cfg.ClientSessionCache = nil
	if vs := st.plan.Versions; len(vs) > 0 {
		cfg.MinVersion, cfg.MaxVersion = slices.Min(vs), slices.Max(vs)
	}
	return cfg
}

// log prints a line the user should read whatever the terminal.
func (p *Plan) log(msg string) {
	switch {
	case p.Log != nil:
		p.Log(msg)
	case p.Notice != nil:
		p.Notice(msg)
	}
}
