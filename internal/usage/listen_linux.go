package usage

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ListensOn reports whether process pid, or one of its descendants (an
// nginx master's workers, a shell's child), holds a socket listening on
// TCP port, over IPv4 or IPv6. A process whose CPU stands for a server's
// must own the server's listening socket: the pid of another process
// would be observed as a server that costs nothing.
//
// It matches the socket inodes among the processes' open files
// (/proc/PID/fd) with the listening sockets of that port in their network
// namespace (/proc/PID/net/tcp and tcp6). The files of another user's
// process cannot be read without privileges: that is an error, not a no.
func ListensOn(pid, port int) (bool, error) {
	l, err := Listener(pid, port)
	return l > 0, err
}

// Listener is the process of pid's tree, pid first and then its
// descendants breadth-first, that holds a socket listening on TCP port
// (the server program under a shell that started it), or 0 when none
// does; its errors are ListensOn's.
func Listener(pid, port int) (int, error) {
	if port <= 0 || port > 65535 {
		return 0, fmt.Errorf("port %d is not a TCP port", port)
	}
	listening, err := listeningInodes(pid, port)
	if err != nil {
		return 0, err
	}
	if len(listening) == 0 {
		return 0, nil
	}
	children, err := childrenOf()
	if err != nil {
		return 0, err
	}
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		inodes, err := socketInodes(p)
		switch {
		case err != nil && p == pid:
			return 0, fmt.Errorf("process %d: %w", pid, err)
		case err != nil:
			continue // a descendant that exited meanwhile, or not ours
		}
		for ino := range inodes {
			if listening[ino] {
				return p, nil
			}
		}
		queue = append(queue, children[p]...)
	}
	return 0, nil
}

// socketInodes returns the inodes of the sockets process pid has open.
func socketInodes(pid int) (map[uint64]bool, error) {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	ents, err := os.ReadDir(dir)
	if err != nil {
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, errors.New("no such process")
		case errors.Is(err, os.ErrPermission):
			return nil, errors.New("its open files cannot be read (another user's process: run as that user or as root)")
		}
		return nil, err
	}
	out := map[uint64]bool{}
	for _, e := range ents {
		link, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil {
			continue // closed meanwhile
		}
		s, ok := strings.CutPrefix(link, "socket:[")
		if !ok {
			continue
		}
		if ino, err := strconv.ParseUint(strings.TrimSuffix(s, "]"), 10, 64); err == nil {
			out[ino] = true
		}
	}
	return out, nil
}

// tcpListen is the state column of /proc/net/tcp for a listening socket.
const tcpListen = "0A"

// listeningInodes returns the inodes of the sockets listening on port in
// the network namespace of process pid.
func listeningInodes(pid, port int) (map[uint64]bool, error) {
	out := map[uint64]bool{}
	for _, name := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "net", name))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				if _, serr := os.Stat(filepath.Join("/proc", strconv.Itoa(pid))); serr != nil {
					return nil, fmt.Errorf("process %d: no such process", pid)
				}
				continue // no IPv6 on this kernel
			}
			return nil, fmt.Errorf("process %d: %w", pid, err)
		}
		if err := parseListening(b, port, out); err != nil {
			return nil, fmt.Errorf("/proc/%d/net/%s: %w", pid, name, err)
		}
	}
	return out, nil
}

// parseListening adds to out the inodes of the sockets in a
// /proc/net/tcp table (proc(5)) that listen on port. Its columns are: sl
// local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt
// uid timeout inode ...; an address is HEX-IP:HEX-PORT.
func parseListening(b []byte, port int, out map[uint64]bool) error {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Scan() // header
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[3] != tcpListen {
			continue
		}
		_, hexPort, ok := strings.Cut(f[1], ":")
		if !ok {
			return fmt.Errorf("unexpected local address %q", f[1])
		}
		p, err := strconv.ParseUint(hexPort, 16, 16)
		if err != nil {
			return fmt.Errorf("unexpected local address %q", f[1])
		}
		if int(p) != port {
			continue
		}
		ino, err := strconv.ParseUint(f[9], 10, 64)
		if err != nil {
			return fmt.Errorf("unexpected inode %q", f[9])
		}
		out[ino] = true
	}
	return sc.Err()
}
