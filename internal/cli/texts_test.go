package cli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/internal/cli"
	"github.com/tlsbench/tlsbench/internal/ktls"
)

// TestUserTextsSpeakOfTheTool: what a user reads names the tool and the
// system, never the language it is written in or the repository's
// scripts.
func TestUserTextsSpeakOfTheTool(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	err := cli.Run(context.Background(), []string{"run", "--tls", "1.3", "--cipher", "aes256gcm", "--resume", "off", "--concurrency", "1"}, &stdout, &stderr)
	msg := cli.Message(err)
	if cli.ExitCode(err) != 2 || !strings.Contains(msg, "tlsbench's client and its built-in server: neither prefers it") {
		t.Errorf("TLS 1.3 AES-256-GCM: exit %d, %q", cli.ExitCode(err), msg)
	}
	for _, internal := range []string{"Go ", "crypto/tls", "CipherSuites"} {
		if strings.Contains(msg, internal) {
			t.Errorf("TLS 1.3 AES-256-GCM: %q speaks of %q", msg, internal)
		}
	}

	if _, _, err := ktls.ModeOn.Decide(); err == nil {
		t.Skip("this kernel has kernel TLS: --ktls on is not refused here")
	}
	err = cli.Run(context.Background(), []string{"run", "--mode", "throughput", "--ktls", "on", "--cipher", "aes128gcm", "--buffer", "16k"}, &stdout, &stderr)
	msg = cli.Message(err)
	if cli.ExitCode(err) != 2 || !strings.Contains(msg, "CONFIG_TLS, its module loaded: modprobe tls") || strings.Contains(msg, "scripts/") {
		t.Errorf("--ktls on refused: exit %d, %q; want what the kernel needs, not a script", cli.ExitCode(err), msg)
	}
}
