// Package scripts holds the tests of the shell scripts beside it: the
// test command must install what it needs or say exactly what is missing.
package scripts

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeSystem makes a directory of stand-ins for the system commands the
// test command asks: dpkg-query reports the packages in installed (a file
// apt-get install adds to), id -u prints uid, apt-get logs its arguments,
// and gofmt reports an unformatted file so that the script stops right
// after the package step.
func fakeSystem(t *testing.T, uid string, missing []string) (bin, aptLog string) {
	t.Helper()
	dir := t.TempDir()
	bin = filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	aptLog = filepath.Join(dir, "apt.log")
	installed := filepath.Join(dir, "installed")
	list, err := os.ReadFile("packages.txt")
	if err != nil {
		t.Fatal(err)
	}
	var have []string
	for _, line := range strings.Split(string(list), "\n") {
		f := strings.Fields(strings.Split(line, "#")[0])
		if len(f) >= 2 && !contains(missing, f[0]) {
			have = append(have, f[0])
		}
	}
	os.WriteFile(installed, []byte(strings.Join(have, "\n")+"\n"), 0o644)
	scripts := map[string]string{
		"dpkg-query": `pkg="${@: -1}"; grep -qx "$pkg" ` + installed + ` && printf 'install ok installed' || exit 1`,
		"id":         `echo ` + uid,
		"apt-get": `echo "$*" >> ` + aptLog + `
if [ "$1" = install ]; then for a in "$@"; do case "$a" in -*|install) ;; *) echo "$a" >> ` + installed + `;; esac; done; fi`,
		"gofmt": `echo stop-here.go`,
	}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/bash\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin, aptLog
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func runTestCommand(t *testing.T, bin string) string {
	t.Helper()
	cmd := exec.Command("bash", "test.sh")
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("test.sh succeeded with a fake gofmt that reports a file:\n%s", out)
	}
	return string(out)
}

// TestTestCommandSaysWhatIsMissing: not root, two packages missing: the
// test command names them and how to install them, installs nothing, and
// runs no test.
func TestTestCommandSaysWhatIsMissing(t *testing.T) {
	t.Parallel()
	bin, aptLog := fakeSystem(t, "1000", []string{"chromium", "squid-openssl"})
	out := runTestCommand(t, bin)
	for _, want := range []string{
		"missing packages the tests need: chromium squid-openssl\n",
		"sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium squid-openssl\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "== gofmt") {
		t.Errorf("tests ran with packages missing:\n%s", out)
	}
	if _, err := os.Stat(aptLog); err == nil {
		t.Errorf("apt-get was run without root")
	}
}

// TestTestCommandInstallsAsRoot: as root with apt-get, the missing
// packages are installed (after a refresh of the lists) and the tests go on.
func TestTestCommandInstallsAsRoot(t *testing.T) {
	t.Parallel()
	bin, aptLog := fakeSystem(t, "0", []string{"qemu-system-x86", "gnutls-bin"})
	out := runTestCommand(t, bin)
	log, err := os.ReadFile(aptLog)
	if err != nil {
		t.Fatalf("apt-get never ran:\n%s", out)
	}
	want := "update -qq\ninstall -y -qq --no-install-recommends qemu-system-x86 gnutls-bin\n"
	if string(log) != want {
		t.Errorf("apt-get calls:\n%s\nwant:\n%s", log, want)
	}
	if !strings.Contains(out, "== gofmt") || strings.Contains(out, "missing packages") {
		t.Errorf("the tests did not go on after the install:\n%s", out)
	}
}

// TestTestCommandInstallsNothingWhenComplete: nothing missing, nothing
// installed (the lists are still refreshed for the VM's kernel).
func TestTestCommandInstallsNothingWhenComplete(t *testing.T) {
	t.Parallel()
	bin, aptLog := fakeSystem(t, "0", nil)
	out := runTestCommand(t, bin)
	if log, _ := os.ReadFile(aptLog); string(log) != "update -qq\n" {
		t.Errorf("apt-get calls %q, want only the update:\n%s", log, out)
	}
}

// TestCIRunsTheREADMECommand: CI runs exactly the test command README
// gives, so that what passes in CI passes for a newcomer.
func TestCIRunsTheREADMECommand(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?m)^Run the tests[^\n]*(?:\n[^\n]+)*\n\n    (\\S[^\n]*)\n").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README has no indented test command after \"Run the tests\"")
	}
	readmeCmd := string(m[1])
	ci, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, line := range strings.Split(string(ci), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "set ") || strings.HasPrefix(line, "cd ") {
			continue
		}
		cmds = append(cmds, line)
	}
	if len(cmds) != 1 || cmds[0] != "exec "+readmeCmd {
		t.Errorf(".ci/run runs %q, want only \"exec %s\" (the README's test command)", cmds, readmeCmd)
	}
}

// TestTestCommandRefusesBadFuzzJobs: a FUZZJOBS that is not a count of
// fuzz targets to run at once is refused at once, exit 2, with a line
// naming it, before any package is looked at.
func TestTestCommandRefusesBadFuzzJobs(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"0", "two", "-1"} {
		bin, aptLog := fakeSystem(t, "0", nil)
		cmd := exec.Command("bash", "test.sh")
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "FUZZJOBS="+v)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.HasPrefix(string(out), "FUZZJOBS="+v+": want ") {
			t.Errorf("FUZZJOBS=%s: %v, %q; want exit 2 and a line naming FUZZJOBS", v, err, out)
		}
		if _, err := os.Stat(aptLog); err == nil {
			t.Errorf("FUZZJOBS=%s: apt-get ran before the refusal", v)
		}
	}
}

// TestTestCommandStopsDistributionSquid: a Squid the distribution's
// package started (its pid file names a live process) is stopped with the
// service manager before the tests, which start their own.
func TestTestCommandStopsDistributionSquid(t *testing.T) {
	t.Parallel()
	bin, _ := fakeSystem(t, "0", nil)
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer sleeper.Process.Kill()
	reaped := make(chan struct{})
	go func() { sleeper.Wait(); close(reaped) }()
	dir := t.TempDir()
	pidFile, log := filepath.Join(dir, "squid.pid"), filepath.Join(dir, "service.log")
	os.WriteFile(pidFile, []byte(strconv.Itoa(sleeper.Process.Pid)+"\n"), 0o644)
	// Either service manager, whichever the machine has: it logs its
	// arguments and ends the process, as stopping the service would.
	for _, name := range []string{"service", "systemctl"} {
		body := "#!/bin/bash\necho \"" + name + " $*\" >> " + log + "\nkill $(cat " + pidFile + "); rm -f " + pidFile + "\n"
		os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755)
	}
	cmd := exec.Command("bash", "test.sh")
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "SQUID_SERVICE_PIDFILE="+pidFile)
	out, _ := cmd.CombinedOutput()
	got, _ := os.ReadFile(log)
	if s := string(got); s != "service squid stop\n" && s != "systemctl disable --now squid\n" {
		t.Errorf("service manager calls %q, want squid stopped:\n%s", got, out)
	}
	if !strings.Contains(string(out), "stopping the distribution's squid service") || !strings.Contains(string(out), "== gofmt") {
		t.Errorf("output:\n%s", out)
	}
	select {
	case <-reaped:
	case <-time.After(10 * time.Second):
		t.Error("the stand-in squid still runs")
	}
}

// TestSquidBumpUsage: the Squid script refuses bad arguments with exit
// status 2 and says what it wants, before touching anything.
func TestSquidBumpUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "usage: "},
		{[]string{"start", "3128"}, "usage: "},
		{[]string{"restart", "3128", t.TempDir()}, "usage: "},
		{[]string{"start", "0", t.TempDir()}, "port 0: want 1..65535"},
		{[]string{"start", "http", t.TempDir()}, "port http: want 1..65535"},
		{[]string{"start", "3128", t.TempDir(), "/nonexistent/ca.pem"}, "origin CA /nonexistent/ca.pem: not readable"},
	} {
		cmd := exec.Command("bash", append([]string{"squid-bump.sh"}, tc.args...)...)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), tc.want) {
			t.Errorf("squid-bump.sh %q: %v, %q; want exit 2 and %q", tc.args, err, out, tc.want)
		}
	}
}
