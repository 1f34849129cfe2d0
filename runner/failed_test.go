package runner_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/runner"
)

// TestFailedCasesIsOneShortLine: however many cases fail, in however
// many ways and with however long reasons, FailedCases says in one line
// of at most 150 characters how many failed and how; each case's reason
// stays in its own error.
func TestFailedCasesIsOneShortLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x509: certificate signed by unknown authority ", 8)
	fell := make([]measure.FellIteration, 20)
	for i := range fell {
		fell[i] = measure.FellIteration{Iteration: i + 1, Resumed: 3, Total: 128, Rate: 3.0 / 128,
			ServerDeclined: map[string]int64{"undecryptable": 100, "expired": 25}}
	}
	kinds := map[string]int64{"bad-echo": 100, "timeout": 20, "alert:handshake failure": 8, "reset": 3}
	one := func(i int) []error {
		name := fmt.Sprintf("handshake/tls1.3/resume/mutual/rsa-3072/x25519mlkem768/c%d", 128+i)
		return []error{
			&measure.CaseError{Case: name, Kind: "alert:" + long, Err: errors.New(long), Count: 128, Hint: long},
			&measure.ErrorRateError{Case: name, Failed: 131, Total: 256, Allowed: 0.001, Setting: "--max-error-rate", Kinds: kinds, First: errors.New(long), Hint: long},
			&measure.StallError{Case: name, Wave: 128, Stage: "exchange", Timeout: 10 * time.Second, Err: errors.New(long), Setting: "--conn-timeout", Hint: long},
			&measure.ResumptionError{Case: name, Setting: "--min-resumption", Required: 0.99, Measured: true, Fell: fell, Iterations: 20, Hint: long},
			&measure.IdentityError{Case: name, Presented: map[string]int64{long: 1}, Served: map[string]int64{long + "2": 1}},
			&measure.MixError{Case: name, Ratio: 0.5, Setting: "--resume-ratio", Iterations: 20},
			errors.New(name + ": " + long),
		}
	}
	for _, tt := range []struct {
		name string
		errs []error
		want string
	}{
		{"one", one(0)[:1], "1 case(s) failed: every connection of an iteration failed (alert:x509: certificate signed by unknow...)"},
		{"one of each", one(0), "7 case(s) failed: every connection of an iteration failed (alert:x509: certificate signed by unknow...) (1)"},
		{"many of each", append(append(one(0), one(1)...), one(2)...), "21 case(s) failed: "},
		{"many alike", append(append(one(0)[3:4], one(1)[3:4]...), one(2)[3:4]...), "3 case(s) failed: resumption below --min-resumption"},
		{"listen queue", []error{&measure.ListenOverflowError{Err: one(0)[2], Note: long, Overflows: 766, Drops: 766}},
			"1 case(s) failed: a wave of connections timed out (exchange), the listen queue overflowed"},
		{"listen drops", []error{&measure.ListenOverflowError{Err: one(0)[1], Note: long, Drops: 3}},
			"1 case(s) failed: more connections failed than --max-error-rate allows, listeners dropped connections"},
		{"server unused", []error{&measure.ServerUnusedError{Case: "handshake/tls1.3/full/c1", Client: 128, Proxy: true}},
			"1 case(s) failed: the server completed none of the handshakes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fc := &runner.FailedCases{Errs: tt.errs}
			msg := fc.Error()
			if len(msg) > 150 || strings.Contains(msg, "\n") || !strings.HasPrefix(msg, tt.want) {
				t.Errorf("message (%d characters) %q: want one line of at most 150 beginning %q", len(msg), msg, tt.want)
			}
			if strings.Contains(msg, long[:60]) {
				t.Errorf("message %q repeats a case's reason", msg)
			}
		})
	}
}
