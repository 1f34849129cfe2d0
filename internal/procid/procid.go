package procid

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Identify names the program running as process pid and its version,
// e.g. ("nginx", "nginx/1.22.1 (built with OpenSSL 3.0.15 ...)"). It knows
// nginx, openssl and gnutls-serv; other programs are named by their file
// name with an empty version. A program run under valgrind (a server
// counted under callgrind) is named as itself, not as valgrind's tool.
// Linux only.
func Identify(pid int) (name, version string, err error) {
	if runtime.GOOS != "linux" {
		return "", "", errors.New("identifying a process needs /proc (Linux)")
	}
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		return "", "", fmt.Errorf("process %d: %w", pid, err)
	}
	// A binary replaced by a package upgrade reads "(deleted)"; its
	// version cannot be asked any more.
	if strings.HasSuffix(exe, " (deleted)") {
		return filepath.Base(strings.TrimSuffix(exe, " (deleted)")), "", nil
	}
	if isValgrindTool(exe) {
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			return "", "", fmt.Errorf("process %d: %w", pid, err)
		}
		prog := valgrindGuest(strings.Split(strings.TrimSuffix(string(cmdline), "\x00"), "\x00"))
		if prog == "" {
			return filepath.Base(exe), "", nil
		}
		if !strings.Contains(prog, "/") {
			if path, err := exec.LookPath(prog); err == nil {
				prog = path
			}
		}
		exe = prog
	}
	name = filepath.Base(exe)
	switch name {
	case "nginx":
		version, err = NginxVersion(exe)
	case "openssl":
		var out []byte
		out, err = exec.Command(exe, "version").Output()
		version = FirstLine(out)
	case "gnutls-serv":
		var out []byte
		out, err = exec.Command(exe, "--version").Output()
		version = FirstLine(out)
	}
	return name, version, err
}

// isValgrindTool reports whether exe is one of valgrind's tools, which
// a program run under valgrind executes as (/usr/libexec/valgrind/
// callgrind-amd64-linux): the program itself is only in its arguments.
func isValgrindTool(exe string) bool {
	return filepath.Base(filepath.Dir(exe)) == "valgrind" && strings.HasSuffix(filepath.Base(exe), "-linux")
}

// valgrindGuest is the program in the arguments of a valgrind tool's
// process: the first after valgrind's own options (which all start with
// "-"), e.g. "/usr/sbin/nginx" of [valgrind.bin --tool=callgrind -q
// /usr/sbin/nginx -c conf]; "" when there is none.
func valgrindGuest(args []string) string {
	for _, a := range args[min(1, len(args)):] {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// NginxVersion is the version of the nginx executable bin and the OpenSSL
// it was built and runs with, e.g.
// "nginx/1.22.1 (built with OpenSSL 3.0.15 3 Sep 2024)".
func NginxVersion(bin string) (string, error) {
	out, err := exec.Command(bin, "-V").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("nginx -V: %w", err)
	}
	var version, built, running string
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "nginx version: "):
			version = strings.TrimPrefix(line, "nginx version: ")
		case strings.HasPrefix(line, "built with "):
			built = line
		case strings.HasPrefix(line, "running with "):
			running = line
		}
	}
	if version == "" {
		return "", fmt.Errorf("nginx -V: no version in %q", FirstLine(out))
	}
	for _, s := range []string{built, running} {
		if s != "" {
			version += " (" + s + ")"
		}
	}
	return version, nil
}

// FirstLine is the first non-blank line of a program's output, trimmed.
func FirstLine(b []byte) string {
	b = bytes.TrimSpace(b)
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return string(bytes.TrimSpace(b))
}
