package usage

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// listenEnv makes the test binary, run as a child, a server: it listens
// on a loopback port of the given network, prints the port and waits.
const listenEnv = "USAGE_TEST_LISTEN"

func TestMain(m *testing.M) {
	if network := os.Getenv(listenEnv); network != "" {
		addr := "127.0.0.1:0"
		if network == "tcp6" {
			addr = "[::1]:0"
		}
		ln, err := net.Listen(network, addr)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println(ln.Addr().(*net.TCPAddr).Port)
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startListener starts a real listening process: the test binary itself,
// directly or under a shell that keeps it as its child (a server's
// worker). It returns the pid to ask about and the port listened on.
func startListener(t *testing.T, network string, underShell bool) (pid, port int) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self)
	if underShell {
		cmd = exec.Command("sh", "-c", `"$0" & wait`, self)
	}
	cmd.Env = append(os.Environ(), listenEnv+"="+network)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if underShell {
			if kids, err := childrenOf(); err == nil {
				for _, k := range kids[cmd.Process.Pid] {
					if p, err := os.FindProcess(k); err == nil {
						p.Kill()
					}
				}
			}
		}
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("listener: %v", err)
	}
	port, err = strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Skipf("cannot listen on %s here: %s", network, line)
	}
	return cmd.Process.Pid, port
}

// TestListensOn: the process that listens on a port (or whose descendant
// does) is told apart from one that does not (a sleep), and from the
// same process asked about another port.
func TestListensOn(t *testing.T) {
	t.Parallel()
	sleep := exec.Command("sleep", "60")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait() })

	v4pid, v4port := startListener(t, "tcp4", false)
	shellPid, shellPort := startListener(t, "tcp4", true)
	// This test process listens too: a port in use by another process
	// than the one asked about.
	own, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	ownPort := own.Addr().(*net.TCPAddr).Port

	tests := []struct {
		name      string
		pid, port int
		want      bool
	}{
		{"the listener", v4pid, v4port, true},
		{"a shell whose child listens", shellPid, shellPort, true},
		{"the listener, another port", v4pid, ownPort, false},
		{"a sleep", sleep.Process.Pid, v4port, false},
		{"a sleep, a port another process listens on", sleep.Process.Pid, ownPort, false},
		{"this process", os.Getpid(), ownPort, true},
	}
	for _, tt := range tests {
		got, err := ListensOn(tt.pid, tt.port)
		if err != nil || got != tt.want {
			t.Errorf("%s: ListensOn(%d, %d) = %v, %v; want %v", tt.name, tt.pid, tt.port, got, err, tt.want)
		}
	}
	// Listener names the process that holds the socket: the listener
	// itself, or the shell's child, not the shell.
	if l, err := Listener(v4pid, v4port); err != nil || l != v4pid {
		t.Errorf("Listener(listener %d) = %d, %v; want itself", v4pid, l, err)
	}
	if l, err := Listener(shellPid, shellPort); err != nil || l <= 0 || l == shellPid {
		t.Errorf("Listener(shell %d) = %d, %v; want its child", shellPid, l, err)
	} else if again, err := Listener(l, shellPort); err != nil || again != l {
		t.Errorf("Listener(the shell's child %d) = %d, %v; want itself", l, again, err)
	}
	if l, err := Listener(sleep.Process.Pid, v4port); err != nil || l != 0 {
		t.Errorf("Listener(a sleep) = %d, %v; want 0", l, err)
	}
	t.Run("tcp6", func(t *testing.T) {
		pid, port := startListener(t, "tcp6", false)
		if got, err := ListensOn(pid, port); err != nil || !got {
			t.Errorf("IPv6 listener: ListensOn(%d, %d) = %v, %v; want true", pid, port, got, err)
		}
	})
}

func TestListensOnErrors(t *testing.T) {
	t.Parallel()
	if _, err := ListensOn(os.Getpid(), 0); err == nil || !strings.Contains(err.Error(), "port 0 is not a TCP port") {
		t.Errorf("port 0: %v", err)
	}
	// A pid that is not running.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := ListensOn(cmd.Process.Pid, 443); err == nil || !strings.Contains(err.Error(), "no such process") {
		t.Errorf("exited process: %v", err)
	}
	// Another user's process (init) cannot be read unless root.
	if os.Geteuid() != 0 {
		if _, err := ListensOn(1, 443); err == nil {
			t.Error("process 1: no error without the right to read its files")
		}
	}
}

func TestParseListening(t *testing.T) {
	t.Parallel()
	table := []byte(`  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:01BB 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 555 1 0 100 0 0 10 0
   1: 0100007F:01BB 0100007F:B2FD 01 00000000:00000000 03:00000B06 00000000     0        0 777 3 0
   2: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 888 1 0
`)
	got := map[uint64]bool{}
	if err := parseListening(table, 443, got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got[555] {
		t.Errorf("listening on 443: %v, want only 555 (777 is a connection, 888 another port)", got)
	}
}
