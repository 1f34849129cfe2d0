//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// trapAddrs are the forbidden destinations' addresses, put on the
// namespace's loopback so that a dial to them stays in the namespace.
var trapAddrs = []string{"10.0.0.1/32", "169.254.169.254/32", "192.0.2.1/32"}

// runInNetns runs one attack in a harness started inside a new network
// namespace (with only a loopback); where none can be made it runs here
// with the proxy's dial budget cut to 1 s, and the row says so.
func runInNetns(cfg *config, a attack) row {
	self, err := os.Executable()
	if err == nil {
		var r row
		if r, err = innerRow(cfg, self, a); err == nil {
			return r
		}
	}
	fmt.Fprintf(os.Stderr, "   no network namespace (%v): running here with a 1 s dial budget\n", err)
	c := *cfg
	c.noNetns = true
	a.opts.proxyArgs = append(a.opts.proxyArgs, "--handshake-timeout", "1s")
	return measure(&c, a)
}

// innerRow starts the harness in a new network namespace (and a user
// namespace when not root, as unshare -rn does) and reads its row.
func innerRow(cfg *config, self string, a attack) (row, error) {
	args := []string{"-netns-inner", "-only", a.name, "-bin", cfg.bin}
	if len(cfg.serveFlags) > 0 {
		args = append(args, "-serve-flags", strings.Join(cfg.serveFlags, " "))
	}
	if len(cfg.proxyFlags) > 0 {
		args = append(args, "-proxy-flags", strings.Join(cfg.proxyFlags, " "))
	}
	cmd := exec.Command(self, args...)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
	if uid, gid := os.Getuid(), os.Getgid(); uid != 0 {
		cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER
		cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}}
		cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: gid, Size: 1}}
	}
	out, err := cmd.Output()
	if err != nil {
		return row{}, err
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r row
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Attack == a.name {
			return r, nil
		}
	}
	return row{}, fmt.Errorf("the harness in the namespace printed no row")
}

// netnsUp brings the namespace's loopback up and puts the trap
// addresses on it.
func netnsUp() error {
	cmds := [][]string{{"link", "set", "lo", "up"}}
	for _, a := range trapAddrs {
		cmds = append(cmds, []string{"addr", "add", a, "dev", "lo"})
	}
	for _, c := range cmds {
		if out, err := exec.Command("ip", c...).CombinedOutput(); err != nil {
			return fmt.Errorf("ip %v: %v: %s", c, err, bytes.TrimSpace(out))
		}
	}
	return nil
}
