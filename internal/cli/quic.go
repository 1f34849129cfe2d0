package cli

import (
	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/runner"
)

// The flags of QUIC handshake cases and TLS 1.3 early data (tlsbench run
// --transport quic --early-data).

// defineQUICFlags defines --early-data-policy on fs (--early-data is an
// axis of the settings table: defineAxisFlags).
func defineQUICFlags(fs *command.FlagSet, f *runFlags) {
	fs.DefString(&f.earlyDataPolicy, "early-data-policy", "")
}

// validateQUIC checks the values of the early-data flags; the plan checks
// what they go with.
func validateQUIC(fs *command.FlagSet, f *runFlags) error {
	if !fs.IsSet("early-data-policy") {
		return nil
	}
	return command.CheckEarlyDataPolicy(f.earlyDataPolicy)
}

// applyQUIC sets the plan's early-data policy from valid flags.
func applyQUIC(fs *command.FlagSet, f *runFlags, p *runner.Plan) {
	if fs.IsSet("early-data-policy") {
		p.EarlyDataPolicy = f.earlyDataPolicy
	}
}
