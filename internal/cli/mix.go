package cli

import (
	"fmt"
	"math"
	"strconv"

	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/runner"
)

// The flag of full/resumed mixes (tlsbench run --resume-ratio).

// defineMixFlags defines --resume-ratio on fs, into f.
func defineMixFlags(fs *command.FlagSet, f *runFlags) {
	fs.Def("resume-ratio", command.List(&f.resumeRatios, parseResumeRatio, runner.RateName))
}

// parseResumeRatio reads one --resume-ratio value.
func parseResumeRatio(s string) (float64, error) {
	r, err := strconv.ParseFloat(s, 64)
	if err != nil || !(r >= 0 && r <= 1) || math.IsInf(r, 0) {
		return 0, fmt.Errorf("%q is not a share between 0 and 1 (0.8: 8 connections in 10 offer a session)", s)
	}
	return r, nil
}

// validateMix checks --resume-ratio against --resume.
func validateMix(fs *command.FlagSet) error {
	if err := plan.CheckResume(fs.IsSet("resume-ratio"), fs.IsSet("resume"), nil); err != nil {
		return command.PlanUsage(err)
	}
	return nil
}

// applyMix sets the plan's shares from valid flags.
func applyMix(fs *command.FlagSet, f *runFlags, p *runner.Plan) {
	if fs.IsSet("resume-ratio") {
		p.ResumeRatios, p.Resume = f.resumeRatios, nil
	}
}
