package runner

import (
	"context"
	"fmt"

	"github.com/tlsbench/tlsbench/internal/extserver"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/results"
)

// startCommands starts the external servers the plan starts by command
// (Target.Command, side b's too), once each for the whole run, by
// address; stopCommands stops them.
func (st *runState) startCommands(ctx context.Context) error {
	for _, sp := range st.plan.sides() {
		t := sp.target
		if t.Command == "" || st.commands[t.Addr] != nil {
			continue
		}
		s, err := extserver.Start(ctx, extserver.Options{Command: t.Command, Addr: t.Addr, Instructions: st.plan.Instructions})
		if err != nil {
			return &ServerStartError{Target: true, Err: plan.Errorf(sp.setting(st.plan, plan.Settings.ServerCmd, plan.Settings.VersusCmd), nil, "the server did not start: %v", err)}
		}
		if st.commands == nil {
			st.commands = map[string]*extserver.Server{}
		}
		st.commands[t.Addr] = s
		if st.plan.Notice != nil {
			st.plan.Notice(fmt.Sprintf("started the server at %s (pid %d): %s", t.Addr, s.PID(), t.Command))
		}
	}
	return nil
}

// serverPID is the process of target t's server that names it in the
// records: --server-pid's, or the program a command started; 0: none.
func (st *runState) serverPID(t *Target) int {
	if s := st.commands[t.Addr]; s != nil && t.Command != "" {
		return s.ListenerPID()
	}
	return t.ServerPID
}

func (st *runState) stopCommands() {
	for _, s := range st.commands {
		s.Stop()
	}
}

// setting is the setting of a side's external server that gives it:
// target's, or versus's for side b against another external server.
func (sp *sideSpec) setting(p *Plan, target, versus *plan.Setting) *plan.Setting {
	if sp.name == results.SideB && p.Versus.Target.Addr != "" {
		return versus
	}
	return target
}
