package runner

import (
	"github.com/tlsbench/tlsbench/measure"
)

// The test hooks of a plan (planHooks), for the external tests.

// SetServerObserver has every case of p see its server through wrap.
func SetServerObserver(p *Plan, wrap func(measure.ServerObserver) measure.ServerObserver) {
	if p.hooks == nil {
		p.hooks = &planHooks{}
	}
	p.hooks.serverObserver = wrap
}
