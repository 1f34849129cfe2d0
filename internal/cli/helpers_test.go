package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/internal/cli"
)

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
