package scripts

import (
	"bytes"
	"crypto/sha256"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReleaseBuildsOtherPlatforms runs the release script for the two
// platforms furthest from Linux, where code that only Linux has would
// fail to build: each binary is a program for its platform, carries the
// VERSION given, and SHA256SUMS holds its hash. The script's five
// platforms take minutes to compile from a cold build cache, so they are
// left to a run by hand (scripts/release.sh DIR). scripts/test.sh builds
// every package for these two first, with the script's flags, so that
// here they only link.
func TestReleaseBuildsOtherPlatforms(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles tlsbench twice")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("needs the go command: %v", err)
	}
	out := t.TempDir()
	const version = "v0.0.0-release-test"
	cmd := exec.Command("bash", "release.sh", out)
	cmd.Env = append(os.Environ(), "PLATFORMS=windows/amd64 darwin/arm64", "VERSION="+version)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release.sh: %v\n%s", err, msg)
	}

	sums, err := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]func(string) error{
		"tlsbench-windows-amd64.exe": func(path string) error {
			f, err := pe.Open(path)
			if err == nil {
				defer f.Close()
				if f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 {
					t.Errorf("%s: machine %#x, not amd64", path, f.Machine)
				}
			}
			return err
		},
		"tlsbench-darwin-arm64": func(path string) error {
			f, err := macho.Open(path)
			if err == nil {
				defer f.Close()
				if f.Cpu != macho.CpuArm64 {
					t.Errorf("%s: cpu %v, not arm64", path, f.Cpu)
				}
			}
			return err
		},
	}
	lines := strings.Split(strings.TrimSpace(string(sums)), "\n")
	if len(lines) != len(want) {
		t.Fatalf("SHA256SUMS has %d lines, want %d:\n%s", len(lines), len(want), sums)
	}
	for _, line := range lines {
		sum, name, ok := strings.Cut(line, "  ")
		check := want[name]
		if !ok || check == nil {
			t.Fatalf("SHA256SUMS line %q: not a hash and one of %v", line, want)
		}
		delete(want, name)
		path := filepath.Join(out, name)
		prog, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := sha256.Sum256(prog); hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: SHA256SUMS says %s, the file hashes to %x", name, sum, got)
		}
		if err := check(path); err != nil {
			t.Errorf("%s: not a program for its platform: %v", name, err)
		}
		if !bytes.Contains(prog, []byte(version)) {
			t.Errorf("%s: does not carry VERSION %s", name, version)
		}
	}
}

// TestReleaseNeedsAnOutputDirectory: without one the script says what it
// wants and builds nothing.
func TestReleaseNeedsAnOutputDirectory(t *testing.T) {
	out, err := exec.Command("bash", "release.sh").CombinedOutput()
	if code := exitCode(err); code != 2 || !strings.Contains(string(out), "usage: scripts/release.sh OUT_DIR") {
		t.Fatalf("exit %d, output %q; want 2 and the usage", code, out)
	}
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
