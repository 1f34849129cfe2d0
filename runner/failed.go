package runner

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
)

// FailedCases is returned when some cases failed (their resumption was
// below the minimum, too many connections failed, a wave stalled, every
// handshake of an iteration failed, the server saw other identities
// than the client presented, or an open-loop case did not hold its
// schedule); the records of those that measured
// something were emitted, marked failed.
// It is a benchmark failure, not a usage error.
//
// Its Error is one short line: how many cases failed and how; each
// case's own error, which says why and what to do, is in Errs.
type FailedCases struct{ Errs []error }

// MaxSummary bounds the length of FailedCases.Error, however many cases
// failed and however long their reasons.
const MaxSummary = 150

func (f *FailedCases) Error() string {
	var kinds []string
	count := map[string]int{}
	for _, e := range f.Errs {
		k := failureKind(e)
		if count[k] == 0 {
			kinds = append(kinds, k)
		}
		count[k]++
	}
	parts := kinds
	if len(kinds) > 1 {
		parts = make([]string, len(kinds))
		for i, k := range kinds {
			parts[i] = fmt.Sprintf("%s (%d)", k, count[k])
		}
	}
	head := fmt.Sprintf("%d case(s) failed: ", len(f.Errs))
	msg := head + strings.Join(parts, ", ")
	for n := len(parts) - 1; len(msg) > MaxSummary && n > 0; n-- {
		msg = head + strings.Join(parts[:n], ", ") + fmt.Sprintf(" and %d other failure(s)", len(parts)-n)
	}
	if len(msg) > MaxSummary {
		return head + "see each case's failure"
	}
	return msg
}

// Unwrap lets errors.As find the individual failures.
func (f *FailedCases) Unwrap() []error { return f.Errs }

// failureKind is a few words on how a case failed, for the one line of
// FailedCases: the case's own error says why. A case whose connections
// met a full listen queue says so: their timeouts were the kernel's
// wait to retransmit their SYN, not TLS.
func failureKind(err error) string {
	var lo *measure.ListenOverflowError
	if errors.As(err, &lo) {
		if lo.Overflows > 0 {
			return failureWay(err) + ", the listen queue overflowed"
		}
		return failureWay(err) + ", listeners dropped connections"
	}
	return failureWay(err)
}

// failureWay is failureKind without the listen queue.
func failureWay(err error) string {
	var (
		ce *measure.CaseError
		ee *measure.ErrorRateError
		se *measure.StallError
		re *measure.ResumptionError
		ie *measure.IdentityError
		ra *measure.RateError
		me *measure.MixError
		ed *measure.EarlyDataError
		pr *measure.ProxyResumedError
		pd *ProxyDiedError
		te *loadgen.ThroughputError
		su *measure.ServerUnusedError
		sd *ServerDiedError
	)
	var px *client.ProxyError
	switch {
	case errors.As(err, &px):
		return fmt.Sprintf("the proxy refused CONNECT (%d)", px.Status)
	case errors.As(err, &ce):
		return "every connection of an iteration failed (" + shortKind(ce.Kind) + ")"
	case errors.As(err, &ee):
		return "more connections failed than " + ee.Setting + " allows"
	case errors.As(err, &se):
		return "a wave of connections timed out (" + se.Stage + ")"
	case errors.As(err, &re):
		return "resumption below " + re.Setting
	case errors.As(err, &ie):
		return "sessions resumed under another client identity"
	case errors.As(err, &ra):
		return "the open-loop schedule was not held"
	case errors.As(err, &me):
		return "the mix of full and resumed handshakes was not held"
	case errors.As(err, &ed):
		return "client and server disagree on accepted early data"
	case errors.As(err, &pr):
		return "the proxy's resumption counts disagree with the client's"
	case errors.As(err, &pd):
		return "the proxy died"
	case errors.As(err, &te):
		return "the transfer failed"
	case errors.As(err, &su):
		return "the server completed none of the handshakes"
	case errors.As(err, &sd):
		return "the server died"
	}
	return "failed"
}

// shortKind cuts a connection error's kind (an alert's text, say) to a
// length the one line can hold.
func shortKind(kind string) string {
	if len(kind) > 40 {
		kind = strings.ToValidUTF8(kind[:40], "") + "..."
	}
	// An alert's text is the server's: no control character of it
	// reaches the terminal.
	return results.Printable(kind)
}
