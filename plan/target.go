package plan

import (
	"net"
	"strconv"

	"github.com/tlsbench/tlsbench/internal/hostname"
)

// CheckAddress refuses the address of an external server, given by
// setting s (target, versus), that is not host:port: a DNS name or an IP
// address, and a port from 1 to 65535.
func CheckAddress(s *Setting, addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" || host == "" {
		return Errorf(s, hostname.Quote(addr), "want host:port, e.g. 127.0.0.1:443 or [::1]:443")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return Errorf(s, strconv.Quote(addr), "the port must be a number from 1 to 65535")
	}
	if err := hostname.Check(host, hostname.Host); err != nil {
		return Errorf(s, nil, "the host %v", err)
	}
	return nil
}

// External is what the rules of an external server read: its address, how
// the clients verify it and prove who they are, and what else the plan
// asks of them.
type External struct {
	Addr, ServerName, CAFile string
	Insecure                 bool
	CertFile, KeyFile        string
	ServerPID                int
	Command                  string // the server's command (server-cmd)
	Mutual                   bool
	ClientIdentities         int
	Transports               []string
}

// Check refuses a target that cannot be reached or verified as given,
// or a plan that asks of it what only the built-in server does.
func (t External) Check() error {
	if err := CheckAddress(Settings.Target, t.Addr); err != nil {
		return err
	}
	if t.ServerName != "" {
		if err := hostname.Check(t.ServerName, hostname.Host); err != nil {
			return Errorf(Settings.SNI, nil, "%v", err)
		}
	}
	switch {
	case t.Insecure && t.CAFile != "":
		return Errorf(Settings.Insecure, nil, "%s and %s contradict each other: give one", Settings.Insecure, Settings.CA)
	case (t.CertFile == "") != (t.KeyFile == ""):
		return Errorf(Settings.ClientCert, nil, "%s and %s go together: give both", Settings.ClientCert, Settings.ClientKey)
	case t.Mutual && t.CertFile == "":
		return Errorf(Settings.Mutual, nil, "%s with %s needs the client identity: %s FILE %s FILE", Settings.Mutual, Settings.Target, Settings.ClientCert, Settings.ClientKey)
	case t.ServerPID < 0:
		return Errorf(Settings.ServerPID, t.ServerPID, "not a process id")
	case t.ServerPID > 0 && t.Command != "":
		return Errorf(Settings.ServerPID, t.ServerPID, "%s samples the server it starts: drop %s", Settings.ServerCmd, Settings.ServerPID)
	case t.Command != "" && !hostname.IsLoopback(t.Addr):
		return Errorf(Settings.ServerCmd, nil, "starts a server on this machine: %s must be a loopback address it listens on, e.g. 127.0.0.1:8443", Settings.Target)
	case t.ClientIdentities > 1:
		return Errorf(Settings.ClientIdentities, nil, "an external target is measured with the one identity of %s and %s", Settings.ClientCert, Settings.ClientKey)
	}
	for _, tr := range t.Transports {
		if tr != TransportTCP && tr != TransportTCP4 && tr != TransportQUIC {
			// The target's address says which family it is dialled over.
			return Errorf(Settings.Transport, nil, "%s %s needs the built-in server: drop %s or use %s tcp", Settings.Transport, tr, Settings.Target, Settings.Transport)
		}
	}
	return nil
}
