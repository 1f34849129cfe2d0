package cli

import (
	"fmt"
	"math"
	"strconv"

	"github.com/tlsbench/tlsbench/runner"
)

// The flag of full/resumed mixes (tlsbench run --resume-ratio).

const mixHelp = `
Full/resumed mixes: --resume-ratio F[,F...] measures cases in which the
share F of each iteration's (or --rate window's) connections offers a
session and the rest make full handshakes, one case each, in place of
--resume: 0 is a full case, 1 a resume case (held to --min-resumption),
and 0.8 a case named mix80 in which 8 connections in 10 offer, spread
evenly over the iteration. Connections that do not offer still keep the
session they get, so those that do always have one. A mix fails (exit 1,
its record kept, marked failed) when, in any iteration, the client's or
the built-in server's count of resumed handshakes is more than one
connection away from the share asked for. Its record splits handshakes
and the client's phases into the full and the resumed part; CPU figures
are the whole mix's.
`

// defineMixFlags defines --resume-ratio on fs, into f.
func defineMixFlags(fs *flagSet, f *runFlags) {
	fs.def("resume-ratio", listFlag[float64]{&f.resumeRatios, parseResumeRatio, runner.RateName})
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
func validateMix(fs *flagSet) error {
	if fs.isSet("resume-ratio") && fs.isSet("resume") {
		return usagef("--resume-ratio and --resume both say which cases resume: give one (--resume-ratio 0,1 is --resume off,on)")
	}
	return nil
}

// applyMix sets the plan's shares from valid flags.
func applyMix(fs *flagSet, f *runFlags, p *runner.Plan) {
	if fs.isSet("resume-ratio") {
		p.ResumeRatios, p.Resume = f.resumeRatios, nil
	}
}
