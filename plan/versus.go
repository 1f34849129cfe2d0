package plan

import (
	"net"
	"os"

	"github.com/tlsbench/tlsbench/internal/hostname"
)

// Interleaved is what the rules of an interleaved run's side b read: how
// side b is given (versus, versus-server, versus-self, versus-set,
// versus-pid) and what else the run is given.
type Interleaved struct {
	Addr       string // side b's external server
	PID        int    // the process sampled as side b's server
	Command    string // the command that starts side b's server
	Executable string // the program running side b's built-in server
	Self       bool
	Settings   bool // side b's built-in server's settings are changed
	// SideA is side a's external server ("": the built-in one), Listen
	// the built-in server's listen address.
	SideA, Listen string
	Proxy         string
	Memory        bool // a case runs over the in-memory transport
}

// Enabled reports whether the run is interleaved: it has a side b.
func (v Interleaved) Enabled() bool { return v.Addr != "" || v.Executable != "" || v.Self }

// Check refuses a side b that is given in part, twice, or as what side a
// cannot be measured against in one run.
func (v Interleaved) Check() error {
	if !v.Enabled() {
		if v.Settings {
			return Errorf(Settings.VersusSet, nil, "change side b's built-in server: give %s or %s too", Settings.VersusSelf, Settings.VersusServer)
		}
		if v.PID != 0 {
			return Errorf(Settings.VersusPID, v.PID, "samples side b's external server: give %s too", Settings.Versus)
		}
		if v.Command != "" {
			return Errorf(Settings.VersusCmd, nil, "starts side b's external server: give %s too", Settings.Versus)
		}
		return nil
	}
	if v.Proxy != "" {
		return Errorf(Settings.Proxy, v.Proxy, "interleaved runs measure servers directly: drop %s or %s", Settings.Proxy, OneOf{Settings.Versus, Settings.VersusServer, Settings.VersusSelf})
	}
	switch {
	case v.Addr != "" && v.Executable != "":
		return Errorf(Settings.VersusServer, v.Executable, "side b is one server: give %s or %s, not both", Settings.Versus, Settings.VersusServer)
	case v.Addr != "" && v.SideA == "":
		return Errorf(Settings.Versus, nil, "%s measures a second external server beside %s: add %s HOST:PORT, or measure the built-in server against another program's with %s PROGRAM", Settings.Versus, Settings.Target, Settings.Target, Settings.VersusServer)
	case v.Executable != "" && v.SideA != "":
		return Errorf(Settings.VersusServer, v.Executable, "runs the built-in server of another program, and %s measures an external one: give %s for a second external server", Settings.Target, Settings.Versus)
	case v.Settings && (v.SideA != "" || v.Addr != ""):
		return Errorf(Settings.VersusSet, nil, "changes side b's built-in server; an external server's settings are its own")
	case v.Addr != "" && v.Addr == v.SideA:
		return Errorf(Settings.Versus, v.Addr, "is side a's server too (%s): to measure one server against itself (A/A), give %s", Settings.Target, Settings.VersusSelf)
	case v.PID < 0:
		return Errorf(Settings.VersusPID, v.PID, "not a process id")
	case v.PID > 0 && v.Addr == "":
		return Errorf(Settings.VersusPID, v.PID, "samples side b's external server: give %s too", Settings.Versus)
	case v.Command != "" && v.Addr == "":
		return Errorf(Settings.VersusCmd, nil, "starts side b's external server: give %s too", Settings.Versus)
	case v.Command != "" && v.PID > 0:
		return Errorf(Settings.VersusPID, v.PID, "%s samples the server it starts: drop %s", Settings.VersusCmd, Settings.VersusPID)
	case v.Command != "" && !hostname.IsLoopback(v.Addr):
		return Errorf(Settings.VersusCmd, nil, "starts a server on this machine: %s must be a loopback address it listens on, e.g. 127.0.0.1:8444", Settings.Versus)
	}
	if v.Addr != "" {
		err := CheckAddress(Settings.Versus, v.Addr)
		if e, ok := err.(*Error); ok && e.Value != "" {
			e.Value = v.Addr // side b's address is shown as given
		}
		if err != nil {
			return err
		}
	}
	if v.SideA == "" && v.Addr == "" && !listensOnFreePort(v.Listen) {
		return Errorf(Settings.Listen, v.Listen, "every side of an interleaved run starts its own built-in server, and they cannot share one port: use port 0 (a free port each), e.g. 127.0.0.1:0")
	}
	if v.Executable != "" {
		if err := checkExecutable(v.Executable); err != nil {
			return err
		}
		if v.Memory {
			return Errorf(Settings.Transport, nil, "%s memory runs the server in this process, so it cannot be another program's: drop memory or %s", Settings.Transport, Settings.VersusServer)
		}
	}
	return nil
}

// checkExecutable refuses a side-b program that cannot be run.
func checkExecutable(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return Errorf(Settings.VersusServer, path, "no such file: give the path of a tlsbench program")
	case fi.IsDir():
		return Errorf(Settings.VersusServer, path, "is a directory: give the path of a tlsbench program")
	case fi.Mode().Perm()&0o111 == 0:
		return Errorf(Settings.VersusServer, path, "is not executable (chmod +x it)")
	}
	return nil
}

// listensOnFreePort reports whether the built-in server's listen address
// leaves the port to the system (the default, or port 0).
func listensOnFreePort(listen string) bool {
	if listen == "" {
		return true
	}
	_, port, err := net.SplitHostPort(listen)
	return err == nil && (port == "0" || port == "")
}
