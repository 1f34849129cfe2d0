package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli"
)

// interruptExit is how long a command may take, after Ctrl-C or
// SIGTERM, to have exited, its process's exit included: the second the
// help promises, or three under the race detector, which makes the
// process's every step several times slower (its exit too, which
// reports on what it saw), on a machine whose two cores other tests
// keep busy. The promise itself is what a build without it is held to.
func interruptExit() time.Duration {
	if raceDetector {
		return 3 * time.Second
	}
	return time.Second
}

func itoa(n int) string { return strconv.Itoa(n) }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// checkExit runs the CLI in-process with args and checks the exit status
// and that the message is one line containing msg.
func checkExit(t *testing.T, args []string, code int, msg string) {
	t.Helper()
	t.Run(strings.Join(args, " "), func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		err := cli.Run(context.Background(), args, &stdout, &stderr)
		if got := cli.ExitCode(err); got != code {
			t.Errorf("exit %d, want %d (err %v)", got, code, err)
		}
		if m := cli.Message(err); !strings.Contains(m, msg) || strings.Contains(m, "\n") {
			t.Errorf("message %q, want one line containing %q", m, msg)
		}
	})
}
