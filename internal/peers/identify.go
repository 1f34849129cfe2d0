package peers

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Identify names the peer program running as process pid and its
// version, e.g. ("nginx", "nginx/1.22.1 (built with OpenSSL 3.0.15 ...)"),
// by the executable /proc/PID/exe points to, so that `run --target
// --server-pid PID` can record which server it measured
// (results.Env.Peers). It knows nginx and openssl; other programs are
// named by their file name with an empty version. Linux only.
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
	name = filepath.Base(exe)
	switch name {
	case "nginx":
		version, err = nginxVersionOf(exe)
	case "openssl":
		var out []byte
		out, err = exec.Command(exe, "version").Output()
		version = firstLine(out)
	}
	return name, version, err
}
