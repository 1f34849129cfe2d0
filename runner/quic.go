package runner

import (
	"cmp"
	"errors"
	"net"
	"slices"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/server"
)

// QUIC cases (TransportQUIC) run against the built-in server's QUIC
// listener, which the child opens beside its TCP one when a case of its
// group is a QUIC case, or against a QUIC target. Early data (the
// EarlyData axis) is the client's: it sends its request as 0-RTT when it
// resumes; the built-in server's answer to it is the run's
// EarlyDataPolicy.

// earlyData is the early-data axis's hook: whether the case's client
// sends its request as early data (0-RTT) when it resumes.
func earlyData(c *Case) bool {
	on, _ := plan.ValueOf[bool](c, "early_data")
	return on
}

// validateQUIC checks the early-data policy, and what a QUIC case needs
// of the plan.
func (p *Plan) validateQUIC() error {
	quic := slices.Contains(p.Transports, TransportQUIC)
	if err := p.validatePolicy(quic); err != nil {
		return err
	}
	for _, s := range p.Versus.Settings {
		if s.Name == "early-data-policy" && !quic {
			return plan.Errorf(plan.Settings.VersusSet, s.String(), "the early-data policy is the built-in server's answer to early data, which comes over QUIC: add %s quic", plan.Settings.Transport)
		}
	}
	if !quic || p.Target.Addr == "" {
		return nil
	}
	switch r := p.Target.quicRequest(); r {
	case client.RequestPing, client.RequestHTTP, client.RequestHTTPGet:
	default:
		return plan.Errorf(plan.Settings.Request, string(r), "over QUIC the request is ping (a tlsbench serve --quic) or http or http-get (HTTP/3)")
	}
	return nil
}

// validatePolicy checks the built-in server's early-data policy.
func (p *Plan) validatePolicy(quic bool) error {
	switch {
	case p.EarlyDataPolicy == "":
		return nil
	case p.Target.Addr != "":
		return plan.Scope{Target: true}.Check(plan.Settings.EarlyDataPolicy)
	case !quic:
		return plan.Errorf(plan.Settings.EarlyDataPolicy, nil, "%s is the built-in server's answer to early data, which comes over QUIC: add %s quic", plan.Settings.EarlyDataPolicy, plan.Settings.Transport)
	}
	return server.CheckEarlyDataPolicy(p.EarlyDataPolicy)
}

// serverObserver is how the run's cases see obs: through the tests' hook,
// when one is set.
func (p *Plan) serverObserver(obs measure.ServerObserver) measure.ServerObserver {
	if p.hooks == nil || p.hooks.serverObserver == nil || obs == nil {
		return obs
	}
	return p.hooks.serverObserver(obs)
}

// errNoQUICListener is a built-in server asked for QUIC that did not say
// where it listens: a program without QUIC (an older tlsbench as side
// b, say).
var errNoQUICListener = errors.New("the built-in server opened no QUIC listener: is it a tlsbench that serves QUIC?")

// quicDialer is how case c reaches sp's server over QUIC (srv, or the
// side's target), with the exchange the plan asks for.
func (st *runState) quicDialer(c *Case, sp *sideSpec, srv *builtin) *client.QUICDialer {
	if sp.target.Addr == "" {
		return &client.QUICDialer{Addr: srv.quicAddr, EarlyData: earlyData(c), Request: client.RequestPing}
	}
	host := st.serverName
	if net.ParseIP(host) != nil {
		host = sp.target.Addr
	}
	return &client.QUICDialer{Addr: sp.target.Addr, EarlyData: earlyData(c), Request: st.plan.Target.quicRequest(), Host: host}
}

// quicCase makes hc, of case c on side sp, a QUIC case.
func (st *runState) quicCase(hc *measure.HandshakeCase, c *Case, sp *sideSpec, srv *builtin) {
	if c.Transport != TransportQUIC {
		return
	}
	hc.QUIC = st.quicDialer(c, sp, srv)
	if sp.target.Addr == "" {
		hc.Record.EarlyDataPolicy = sp.earlyDataPolicy(st.plan)
	}
}

// earlyDataPolicy is the policy of sp's built-in server: the plan's, or
// the one side b's settings give it, or accept, which startSide gives
// the server when the plan sets none.
func (sp *sideSpec) earlyDataPolicy(p *Plan) string {
	policy := cmp.Or(p.EarlyDataPolicy, server.EarlyDataAccept)
	for _, s := range sp.settings {
		if s.Name == "early-data-policy" {
			policy = s.Value
		}
	}
	return policy
}
