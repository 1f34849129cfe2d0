package command

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// UsageError is a mistake in the command line or its input files: exit 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef is a UsageError with a formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// InterruptedError is a run stopped by Ctrl-C (exit 130); Detail says
// what became of the results.
type InterruptedError struct{ Detail string }

func (e *InterruptedError) Error() string { return "interrupted; " + e.Detail }
func (e *InterruptedError) Unwrap() error { return context.Canceled }

// StatusError is the exit status of a run made in another process,
// which printed its own error: exit Status, and nothing more to say.
type StatusError struct{ Status int }

func (e *StatusError) Error() string { return fmt.Sprintf("exit status %d", e.Status) }

// ErrHelp is returned after help was printed on request: exit 0.
var ErrHelp = errors.New("help requested")

// Exit statuses.
const (
	ExitOK          = 0
	ExitFailure     = 1 // a benchmark or gate failed, or a runtime error
	ExitUsage       = 2
	ExitInterrupted = 130
)

// ExitCode maps a command's error to the process exit status.
func ExitCode(err error) int {
	var ue *UsageError
	var se *StatusError
	switch {
	case errors.As(err, &se):
		return se.Status
	case err == nil, errors.Is(err, ErrHelp):
		return ExitOK
	case errors.As(err, &ue):
		return ExitUsage
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	}
	return ExitFailure
}

// Message is the one line main prints for err ("" for none).
func Message(err error) string {
	var se *StatusError
	if err == nil || errors.Is(err, ErrHelp) || errors.As(err, &se) {
		return ""
	}
	var ie *InterruptedError
	if errors.As(err, &ie) {
		return "interrupted; " + ie.Detail
	}
	if errors.Is(err, context.Canceled) {
		return "interrupted; results measured so far were written"
	}
	if fc, ok := err.(*runner.FailedCases); ok {
		// The reasons, one line per case, were printed before it.
		return fc.Error() + "; the reasons are listed above"
	}
	return Printable(err.Error())
}

// Printable is s on one line with its control characters (a hostile
// server's, in an alert or a certificate name) shown as escapes
// (results.Printable): newlines become spaces.
func Printable(s string) string {
	return results.Printable(strings.ReplaceAll(s, "\n", " "))
}
