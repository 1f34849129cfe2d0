package command

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// PercentFlag is a percentage given with its % sign ("5%", "2.5%"), stored
// as a fraction. The sign is required: "5" could mean 5% or 500%.
type PercentFlag struct {
	frac *float64
	set  *bool
}

func (p *PercentFlag) String() string {
	if p.frac == nil || p.set == nil || !*p.set {
		return ""
	}
	return strconv.FormatFloat(*p.frac*100, 'f', -1, 64) + "%"
}

func (p *PercentFlag) Set(s string) error {
	num, ok := strings.CutSuffix(strings.TrimSpace(s), "%")
	if !ok {
		return fmt.Errorf("%q needs a %% sign, e.g. 5%%", s)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return fmt.Errorf("%q is not a percentage of 0%% or more, e.g. 5%%", s)
	}
	*p.frac, *p.set = v/100, true
	return nil
}

// NewPercentFlag is the flag of the fraction frac; set says whether it
// was given, and whether the help shows the default.
func NewPercentFlag(frac *float64, set *bool) *PercentFlag {
	return &PercentFlag{frac: frac, set: set}
}
