package testbuild

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Options are what a build differs by.
type Options struct {
	// Tags are build tags (a test-only server, say).
	Tags []string
	// Version is stamped into the program as the version it reports;
	// empty: the one the go command derives.
	Version string
	// Module is the directory of the module to build (a copy of the
	// repository, say); empty: the one the test runs in. A build of a
	// Module is stamped with its git revision (-buildvcs=true, over a
	// GOFLAGS that turns stamping off).
	Module string
}

// packagePath is the tlsbench command, built wherever the test runs.
const packagePath = "github.com/tlsbench/tlsbench/cmd/tlsbench"

// versionVariable is the variable the version is stamped into.
const versionVariable = "github.com/tlsbench/tlsbench/results.Version"

// Program builds tlsbench as o says into dir/name and returns its path.
// The test fails when the go command is missing or the build fails.
func Program(t testing.TB, dir, name string, o Options) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("building tlsbench for a test needs the go command: %v", err)
	}
	bin := filepath.Join(dir, name)
	args := []string{"build", "-trimpath", "-o", bin}
	if len(o.Tags) > 0 {
		args = append(args, "-tags", strings.Join(o.Tags, ","))
	}
	if o.Version != "" {
		args = append(args, "-ldflags", "-X "+versionVariable+"="+o.Version)
	}
	if o.Module != "" {
		args = append(args, "-buildvcs=true")
	}
	cmd := exec.Command(goBin, append(args, packagePath)...)
	cmd.Dir = o.Module
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return bin
}
