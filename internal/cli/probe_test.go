package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli"
	"github.com/tlsbench/tlsbench/probe"
)

// TestProbeServe probes `tlsbench serve` through the CLI: JSON that
// decodes into a probe.Report, a table, and exit 0.
func TestProbeServe(t *testing.T) {
	t.Parallel()
	addr, ca, stop := startServe(t)
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	common := []string{"probe", addr, "--ca", ca, "--sni", "localhost", "--request", "ping", "--concurrency", "8", "--ticket-wait", "100ms"}

	var stdout, stderr bytes.Buffer
	err := cli.Run(ctx, append(common, "--format", "json"), &stdout, &stderr)
	if code := cli.ExitCode(err); code != 0 {
		t.Fatalf("exit %d: %v\n%s", code, err, stderr.String())
	}
	var rep probe.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("JSON output: %v\n%s", err, stdout.String())
	}
	for _, v := range []string{"1.2", "1.3"} {
		vr := rep.Lookup(v)
		if vr == nil || vr.Accepted.Status != probe.Yes || vr.Resumption.Status != probe.Yes || vr.Load.ResumptionRate == nil || *vr.Load.ResumptionRate < 0.99 {
			t.Errorf("TLS %s: %+v", v, vr)
		}
	}
	if v := rep.Lookup("1.0"); v == nil || v.Accepted.Status != probe.No {
		t.Errorf("TLS 1.0: %+v, want not accepted", v)
	}
	// The JSON field names are a contract for scripts.
	for _, f := range []string{`"target"`, `"certificate"`, `"versions"`, `"accepted"`, `"tickets"`, `"per_connection"`,
		`"lifetime_seconds"`, `"resumption"`, `"session_id_resumption"`, `"session_id_under_concurrency"`, `"resumes_by"`, `"ticket_reuse"`, `"mutual_resumption"`, `"resumption_under_load"`} {
		if !strings.Contains(stdout.String(), f) {
			t.Errorf("JSON has no %s field", f)
		}
	}

	stdout.Reset()
	if err := cli.Run(ctx, common, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"TLS 1.3", "PSK resumption", "ticket resumption", "session-ID resumption", "no: the server gave no session ID", "resumes by", "resumption at c8"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, stdout.String())
		}
	}
}

// TestProbeExitCodes: usage errors exit 2; a server that cannot be reached
// at all exits 1 (the probe did not run); a probe that ran exits 0 even
// when the server supports nothing (covered by TestProbeServe).
func TestProbeExitCodes(t *testing.T) {
	t.Parallel()
	// A port that was free a moment ago: nothing listens on it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"probe"}, 2, "needs the server's address"},
		{[]string{"probe", "nohost"}, 2, "want HOST:PORT"},
		{[]string{"probe", closed, "--format", "yaml"}, 2, "--format:"},
		{[]string{"probe", closed, "--request", "smtp"}, 2, "--request:"},
		{[]string{"probe", closed, "--tls", "1.4"}, 2, "--tls:"},
		{[]string{"probe", closed, "--client-key", "k.pem"}, 2, "--client-cert and --client-key"},
		{[]string{"probe", closed, "--nope"}, 2, "unknown flag --nope"},
		{[]string{"probe", closed, "--concurrency", "0", "--tls", "1.3"}, 1, "cannot connect to " + closed},
		{[]string{"probe", "--help"}, 0, ""},
	}
	for _, tt := range tests {
		checkExit(t, tt.args, tt.code, tt.msg)
	}
}

// TestProbeAdviceNamesFlags checks that the report's advice, which the
// library writes by setting, reaches users as the flags of probe.
func TestProbeAdviceNamesFlags(t *testing.T) {
	t.Parallel()
	addr, _, stop := startServe(t)
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"--tls", "1.3"}, []string{
			"; give --ca FILE or --sni NAME, or --insecure",
			"give --ca FILE or --sni NAME, or --insecure to probe it anyway"}},
		{[]string{"--tls", "1.3", "--insecure", "--concurrency", "0"}, []string{
			"off (--insecure)", "(not enforced: --insecure)",
			"no client certificate given (--client-cert, --client-key)", "disabled (--concurrency 0)"}},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"probe", addr, "--request", "ping", "--ticket-wait", "50ms"}, tt.args...)
		if err := cli.Run(ctx, args, &stdout, &stderr); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr.String())
		}
		for _, want := range tt.want {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("%v: table lacks %q:\n%s", tt.args, want, stdout.String())
			}
		}
		if strings.Contains(stdout.String(), "{") {
			t.Errorf("%v: a setting left unnamed:\n%s", tt.args, stdout.String())
		}
	}
}

// TestProbeSilentServer: a server that accepts and never answers teaches
// the probe nothing; it says so per version and exits 1 instead of 0.
func TestProbeSilentServer(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		var held []net.Conn // never read, never answered
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	err = cli.Run(ctx, []string{"probe", ln.Addr().String(), "--insecure", "--tls", "1.2,1.3", "--timeout", "300ms"}, &stdout, &stderr)
	if code := cli.ExitCode(err); code != 1 || !strings.Contains(cli.Message(err), "no handshake completed with any TLS version") {
		t.Fatalf("exit %d (%v), want 1 saying that nothing was learnt", code, err)
	}
	if out := stdout.String(); strings.Count(out, "no answer within 300ms") != 2 || strings.Contains(out, "context deadline") {
		t.Errorf("report does not say, per version, that the server did not answer:\n%s", out)
	}
}
