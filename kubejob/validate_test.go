package kubejob_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/kubejob"
)

// TestSpecErrors: every setting the Job cannot use is refused with a
// *field.Error naming it, before anything is built.
func TestSpecErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		change func(*kubejob.Spec)
		field  string
		reason string
	}{
		{"no image", func(s *kubejob.Spec) { s.Image = " " }, "Image", "missing"},
		{"image with space", func(s *kubejob.Spec) { s.Image = "tlsbench latest" }, "Image", "no spaces"},
		{"no shards", func(s *kubejob.Spec) { s.Shards = 0 }, "Shards", "between 1 and 1000"},
		{"negative shards", func(s *kubejob.Spec) { s.Shards = -3 }, "Shards", "between 1 and 1000"},
		{"too many shards", func(s *kubejob.Spec) { s.Shards = kubejob.MaxShards + 1 }, "Shards", "between 1 and 1000"},
		{"upper-case name", func(s *kubejob.Spec) { s.Name = "TLSBench" }, "Name", "lower-case"},
		{"name with dot", func(s *kubejob.Spec) { s.Name = "tls.bench" }, "Name", "not a valid name"},
		{"name ends in dash", func(s *kubejob.Spec) { s.Name = "bench-" }, "Name", "not a valid name"},
		{"name too long for the host names", func(s *kubejob.Spec) {
			s.Name, s.Shards = strings.Repeat("b", 61), 100
		}, "Name", "too long for 100 shards"},
		{"bad namespace", func(s *kubejob.Spec) { s.Namespace = "Load_Test" }, "Namespace", "not a valid name"},
		{"bad secret", func(s *kubejob.Spec) { s.Secret = "pki/ca" }, "Secret", "not a Secret's name"},
		{"negative CPUs", func(s *kubejob.Spec) { s.CPUs = -1 }, "CPUs", "whole number of CPUs"},
		{"too many CPUs", func(s *kubejob.Spec) { s.CPUs = 1000 }, "CPUs", "between 1 and 256"},
		{"memory not a size", func(s *kubejob.Spec) { s.Memory = "lots" }, "Memory", "want a size such as 512Mi"},
		{"memory too small", func(s *kubejob.Spec) { s.Memory = "1Mi" }, "Memory", "at least 32Mi"},
		{"memory in millibytes", func(s *kubejob.Spec) { s.Memory = "500m" }, "Memory", "at least 32Mi"},
		{"spread", func(s *kubejob.Spec) { s.Spread = "sometimes" }, "Spread", "want required or preferred"},
		{"no start", func(s *kubejob.Spec) { s.StartAt = time.Time{} }, "StartAt", "common start time"},
		{"deadline too short", func(s *kubejob.Spec) { s.Deadline = 10 * time.Millisecond }, "Deadline", "between 1s and"},
		{"negative deadline", func(s *kubejob.Spec) { s.Deadline = -time.Hour }, "Deadline", "between 1s and"},
		{"deadline too long", func(s *kubejob.Spec) { s.Deadline = 30 * 24 * time.Hour }, "Deadline", "between 1s and"},
		{"negative ttl", func(s *kubejob.Spec) { s.TTL = -time.Second }, "TTL", "between 0"},
		{"no target", func(s *kubejob.Spec) { s.RunArgs = []string{"--tls", "1.3"} }, "RunArgs", "needs Target.Addr HOST:PORT"},
		{"no duration", func(s *kubejob.Spec) { s.RunArgs = []string{"--target", "h:1", "--iterations", "5"} }, "RunArgs", "needs Duration: cases of a fixed length"},
		{"no run args", func(s *kubejob.Spec) { s.RunArgs = nil }, "RunArgs", "needs Target.Addr"},
		{"dashes", func(s *kubejob.Spec) { s.RunArgs = []string{"--target", "h:1", "--"} }, "RunArgs", "the run takes flags only"},
		{"dashes before target", func(s *kubejob.Spec) { s.RunArgs = []string{"--", "--target", "h:1"} }, "RunArgs", "the run takes flags only"},
		{"not UTF-8", func(s *kubejob.Spec) { s.RunArgs = append(s.RunArgs, "--sni", "\xff") }, "RunArgs", "UTF-8 text"},
		{"NUL", func(s *kubejob.Spec) { s.RunArgs = append(s.RunArgs, "--sni", "a\x00b") }, "RunArgs", "without NUL"},
		{"run twice", func(s *kubejob.Spec) { s.RunArgs = append([]string{"run"}, s.RunArgs...) }, "RunArgs", "without the word run"},
		{"shard", func(s *kubejob.Spec) { s.RunArgs = append(s.RunArgs, "--shard", "0/4") }, "RunArgs", "shard index"},
		{"shards", func(s *kubejob.Spec) { s.RunArgs = append(s.RunArgs, "--shards=4") }, "RunArgs", "its own shard count"},
		{"start at", func(s *kubejob.Spec) { s.RunArgs = append(s.RunArgs, "-start-at", "+1m") }, "RunArgs", "start time it bakes in"},
		{"out", func(s *kubejob.Spec) { s.RunArgs = append(s.RunArgs, "--out", "r.jsonl") }, "RunArgs", "writes its records to its log"},
		{"out dash", func(s *kubejob.Spec) { s.RunArgs = append(s.RunArgs, "--out=-") }, "RunArgs", "writes its records to its log"},
		{"o", func(s *kubejob.Spec) { s.RunArgs = append(s.RunArgs, "-o", "r.jsonl") }, "RunArgs", "writes its records to its log"},
		{"ca without secret", func(s *kubejob.Spec) { s.RunArgs = append(s.RunArgs, "--ca", "pki/ca.pem") }, "RunArgs",
			"mount one with Secret and name the file as /etc/tlsbench/ca.pem"},
		{"ca outside the secret", func(s *kubejob.Spec) {
			s.Secret, s.RunArgs = "pki", append(s.RunArgs, "--ca=/etc/ssl/ca.pem")
		}, "RunArgs", "name it /etc/tlsbench/ca.pem"},
		{"key escaping the secret", func(s *kubejob.Spec) {
			s.Secret, s.RunArgs = "pki", append(s.RunArgs, "--client-key", "/etc/tlsbench/../shadow")
		}, "RunArgs", "name it /etc/tlsbench/shadow"},
		{"cert without secret", func(s *kubejob.Spec) { s.RunArgs = append(s.RunArgs, "-client-cert=/etc/tlsbench/c.pem") }, "RunArgs",
			"mount one with Secret"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := baseSpec()
			c.change(&s)
			job, err := kubejob.New(s)
			var fe *field.Error
			if !errors.As(err, &fe) {
				t.Fatalf("New = %v; want a *field.Error", err)
			}
			if fe.Field != c.field || !strings.Contains(fe.Reason, c.reason) {
				t.Errorf("error %q (field %s); want field %s, reason with %q", fe, fe.Field, c.field, c.reason)
			}
			if job != nil {
				t.Error("a Job was returned with the error")
			}
			if _, err := kubejob.Manifest(s); !errors.As(err, &fe) {
				t.Errorf("Manifest = %v, want the same refusal", err)
			}
		})
	}
}

// TestSpecAccepts: forms that look close to the refused ones but are
// fine.
func TestSpecAccepts(t *testing.T) {
	t.Parallel()
	cases := map[string]func(*kubejob.Spec){
		"single-dash target":    func(s *kubejob.Spec) { s.RunArgs = []string{"-target=h:443", "-duration=10s"} },
		"flag values like ours": func(s *kubejob.Spec) { s.RunArgs = append(s.RunArgs, "--request", "http-get") },
		"secret files": func(s *kubejob.Spec) {
			s.Secret = "tls.pki-1"
			s.RunArgs = append(s.RunArgs, "--ca", "/etc/tlsbench/ca.pem", "--client-cert=/etc/tlsbench/sub/c.pem")
		},
		"longest name":    func(s *kubejob.Spec) { s.Name, s.Shards = strings.Repeat("c", 61), 10 },
		"memory in bytes": func(s *kubejob.Spec) { s.Memory = "1073741824" },
		"zero ttl":        func(s *kubejob.Spec) { s.TTL = 0 },
	}
	for name, change := range cases {
		s := baseSpec()
		change(&s)
		if _, err := kubejob.New(s); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
