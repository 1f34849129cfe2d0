package runner

import (
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/server"
)

// The plan's cases and its names, as the runner's API has always given
// them.
type (
	// Case is one point of the axes (see plan.Case).
	Case = plan.Case
)

// Modes of a case.
const (
	ModeHandshake  = plan.ModeHandshake
	ModeThroughput = plan.ModeThroughput
)

// Transports a case can run over (see plan.TransportTCP).
const (
	TransportTCP    = plan.TransportTCP
	TransportTCP4   = plan.TransportTCP4
	TransportTCP6   = plan.TransportTCP6
	TransportMemory = plan.TransportMemory
	TransportQUIC   = plan.TransportQUIC
)

// DefaultKeyType is the server key type when the plan names none.
const DefaultKeyType = plan.DefaultKeyType

// ProxyBuiltin names the built-in proxy in Proxy.URL: tlsbench's own,
// started as a child process like the built-in server.
const ProxyBuiltin = plan.ProxyBuiltin

// The wires of a throughput case (ThroughputPlan.Request): the bulk
// protocol, or HTTP requests, which a bumping HTTP proxy can parse.
const (
	RequestBulk = plan.RequestBulk
	RequestHTTP = plan.RequestHTTP
)

// RateName, MixName and SizeName write a rate, a share of resumed
// connections and a size as flags take them and case names show them.
var (
	RateName = plan.RateName
	MixName  = plan.MixName
	SizeName = plan.SizeName
)

// serverHooks are what the axes that configure the built-in server set
// on it, keyed by the axis's record parameter: the plan says which axes
// configure the server (cases that differ in one run against different
// servers), the runner how.
var serverHooks = map[string]func(c *Case, o *server.Options){
	"resume_ratio": func(c *Case, o *server.Options) { o.MeasureHandshakeCPU = plan.IsMix(c) },
	"key_cache":    func(c *Case, o *server.Options) { o.DisableKeyCache = !c.KeyCache },
	"transport": func(c *Case, o *server.Options) {
		if c.Transport == plan.TransportTCP6 && (o.Listen == "" || o.Listen == defaultListen) {
			o.Listen = defaultListen6
		}
		// A QUIC server listens on TCP too (its control of the
		// child and the dial that detects its death).
		o.QUIC = c.Transport == plan.TransportQUIC
	},
}

// proxyHooks are what the axes that configure the built-in proxy set on
// it, keyed by the axis's record parameter. Through the built-in proxy a
// case resumes on both legs or on neither: the proxy keeps its origin
// sessions only in resume cases. With a proxy, kTLS is the proxy's, on
// both its legs: client and origin run user-space TLS (see
// tpRun.endKTLS).
var proxyHooks = map[string]func(c *Case, o *proxySettings){
	"resume":       func(c *Case, o *proxySettings) { o.OriginSessions = c.Resume },
	"resume_ratio": func(c *Case, o *proxySettings) { o.OriginSessions = c.Resume },
	"mint_cache":   func(c *Case, o *proxySettings) { o.MintCache = c.MintCache },
	"buffer_bytes": func(c *Case, o *proxySettings) { o.Buffer = c.Buffer },
	"read_fill":    func(c *Case, o *proxySettings) { o.ReadFill = c.ReadFill },
	"ktls":         func(c *Case, o *proxySettings) { o.KTLS = c.KTLS.String() },
}

// configureServer applies the case's axes to the built-in server, in
// the order of the axis table.
func configureServer(c *Case, o *server.Options) {
	for _, param := range plan.AxisParams() {
		if hook := serverHooks[param]; hook != nil && c.Uses(param) {
			hook(c, o)
		}
	}
}

// configureProxy applies the case's axes to the built-in proxy.
func configureProxy(c *Case, o *proxySettings) {
	for _, param := range plan.AxisParams() {
		if hook := proxyHooks[param]; hook != nil && c.Uses(param) {
			hook(c, o)
		}
	}
}
