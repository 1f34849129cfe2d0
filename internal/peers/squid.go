package peers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tlsbench/tlsbench/internal/procid"
)

// SquidConfig describes a test Squid that bumps TLS (scripts/squid-bump.sh).
type SquidConfig struct {
	// OriginCA is the CA file Squid verifies origins against (Squid's
	// tls_outgoing_options cafile); empty: the system roots.
	OriginCA string
	// DenyPorts are ports Squid refuses to CONNECT to (403), for tests of
	// a refusing proxy; every other loopback port is allowed.
	DenyPorts []int
	// PlainPort adds a second port where Squid does not bump (PlainAddr):
	// on the bumping port Squid answers every CONNECT with 200, refused or
	// not, and serves its error inside the TLS it terminates; on the plain
	// port CONNECT gets its real status (403, 503) and becomes a tunnel.
	PlainPort bool
	// Dir holds the configuration, CA, certificate database and log
	// (default a new directory under the system temporary directory,
	// removed by Stop). As root, Squid runs as an unprivileged user who
	// must be able to reach Dir: t.TempDir() is private, so leave it empty.
	Dir string
}

// SquidProxy is a running Squid bumping TLS on a loopback port.
type SquidProxy struct {
	addr  string
	plain string
	dir   string
	pid   int
	rmDir bool

	stopOnce sync.Once
	stopErr  error
	stopped  chan struct{}
}

// squidScript is scripts/squid-bump.sh, found from this file's place in
// the source tree (peers is test support: the source is there).
func squidScript() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("squid peer: cannot locate the source tree")
	}
	p := filepath.Join(filepath.Dir(file), "..", "..", "scripts", "squid-bump.sh")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("squid peer: %w", err)
	}
	return p, nil
}

// StartSquid starts Squid with scripts/squid-bump.sh on a free 127.0.0.1
// port and returns once it accepts connections. Squid cannot listen on
// port 0 and say which it got: a port that was just free is chosen, and
// another tried if Squid finds it taken. ctx ending stops Squid.
func StartSquid(ctx context.Context, cfg SquidConfig) (*SquidProxy, error) {
	if _, err := lookPath("squid"); err != nil {
		return nil, err
	}
	script, err := squidScript()
	if err != nil {
		return nil, err
	}
	s := &SquidProxy{dir: cfg.Dir, stopped: make(chan struct{})}
	if s.dir == "" {
		if s.dir, err = os.MkdirTemp("", "tlsbench-squid-"); err != nil {
			return nil, err
		}
		s.rmDir = true
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		if lastErr = s.start(ctx, script, cfg); lastErr == nil {
			break
		}
		if !strings.Contains(lastErr.Error(), "in use") {
			break
		}
	}
	if lastErr != nil {
		s.cleanup()
		return nil, lastErr
	}
	go func() {
		select {
		case <-ctx.Done():
			s.Stop()
		case <-s.stopped:
		}
	}()
	return s, nil
}

// start makes one attempt on a port that was just free.
func (s *SquidProxy) start(ctx context.Context, script string, cfg SquidConfig) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	args := []string{script, "start", strconv.Itoa(port), s.dir}
	if cfg.OriginCA != "" {
		ca, err := filepath.Abs(cfg.OriginCA)
		if err != nil {
			return err
		}
		args = append(args, ca)
	}
	cmd := exec.CommandContext(ctx, "bash", args...)
	var deny []string
	for _, p := range cfg.DenyPorts {
		deny = append(deny, strconv.Itoa(p))
	}
	cmd.Env = append(os.Environ(), "SQUID_DENY_PORTS="+strings.Join(deny, " "), "ORIGIN_CA=", "SQUID_PLAIN_PORT=")
	plain := 0
	if cfg.PlainPort {
		if plain, err = freePort(); err != nil {
			return err
		}
		cmd.Env[len(cmd.Env)-1] += strconv.Itoa(plain)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("starting squid: %v: %s", err, lastLines(strings.TrimSpace(stderr.String()), 5))
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || pid <= 0 {
		return fmt.Errorf("starting squid: the script printed %q, not a process id", out)
	}
	s.pid, s.addr = pid, "127.0.0.1:"+strconv.Itoa(port)
	if plain != 0 {
		s.plain = "127.0.0.1:" + strconv.Itoa(plain)
	}
	return nil
}

// Addr is the 127.0.0.1:port Squid listens on.
func (s *SquidProxy) Addr() string { return s.addr }

// PlainAddr is the 127.0.0.1:port where Squid does not bump (empty
// without SquidConfig.PlainPort).
func (s *SquidProxy) PlainAddr() string { return s.plain }

// URL is the proxy's URL, "http://127.0.0.1:PORT".
func (s *SquidProxy) URL() string { return "http://" + s.addr }

// CAFile is the CA that signs the certificates Squid mints: the one
// clients going through it must trust.
func (s *SquidProxy) CAFile() string { return filepath.Join(s.dir, "ca.pem") }

// PID is the Squid process (started with -N: one process relays
// everything, so a CPU sampler given this PID sees all of its work; its
// certificate generator helpers are its children).
func (s *SquidProxy) PID() int { return s.pid }

// Dir is the directory of Squid's configuration, CA and log.
func (s *SquidProxy) Dir() string { return s.dir }

// CacheLog returns Squid's log.
func (s *SquidProxy) CacheLog() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "cache.log"))
	return string(b)
}

// Stop ends Squid (the script's stop: SIGTERM, SIGKILL after 10 s), waits
// for it and removes its temporary directory.
func (s *SquidProxy) Stop() error {
	s.stopOnce.Do(func() {
		defer close(s.stopped)
		script, err := squidScript()
		if err == nil {
			var out []byte
			out, err = exec.Command("bash", script, "stop", strings.TrimPrefix(s.addr, "127.0.0.1:"), s.dir).CombinedOutput()
			if err != nil {
				err = fmt.Errorf("stopping squid: %v: %s", err, strings.TrimSpace(string(out)))
			}
		}
		if err != nil {
			// Whatever went wrong, do not leave it running.
			if p, ferr := os.FindProcess(s.pid); ferr == nil {
				p.Kill()
			}
		}
		s.stopErr = err
		s.cleanup()
	})
	return s.stopErr
}

func (s *SquidProxy) cleanup() {
	if s.rmDir {
		os.RemoveAll(s.dir)
	}
}

// Squid starts a bumping Squid for the test (see StartSquid) and stops it
// when the test ends; its log is attached to the output of a failed test.
func Squid(t testing.TB, cfg SquidConfig) *SquidProxy {
	t.Helper()
	Require(t, "squid")
	Require(t, "openssl") // the script generates Squid's CA with it
	s, err := StartSquid(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("squid cache.log:\n%s", lastLines(strings.TrimSpace(s.CacheLog()), 40))
		}
		if err := s.Stop(); err != nil {
			t.Errorf("stopping squid: %v", err)
		}
	})
	return s
}

// Version is the version of the Squid that runs, e.g. "Squid Cache:
// Version 5.7".
func (s *SquidProxy) Version() string {
	v, _ := SquidVersion()
	return v
}

// SquidVersion is the installed Squid's version line, e.g. "Squid Cache:
// Version 5.7".
func SquidVersion() (string, error) {
	bin, err := lookPath("squid")
	if err != nil {
		return "", err
	}
	out, err := exec.Command(bin, "-v").Output()
	if err != nil {
		return "", fmt.Errorf("squid -v: %w", err)
	}
	return procid.FirstLine(out), nil
}
