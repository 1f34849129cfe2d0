package peers

import (
	"net"
	"os"
	"os/exec"
	"testing"
)

// udpBoundBy finds a socket this process bound, and not for another
// process, nor on a port no one holds.
func TestUDPBoundBy(t *testing.T) {
	if _, err := os.Stat("/proc/net/udp"); err != nil {
		t.Skipf("no /proc/net/udp on this system: %v", err)
	}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := pc.LocalAddr().(*net.UDPAddr).Port
	if bound, err := udpBoundBy(os.Getpid(), port); err != nil || !bound {
		t.Fatalf("this process's socket on port %d: bound %v, %v", port, bound, err)
	}
	other := exec.Command("sleep", "10")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	if bound, err := udpBoundBy(other.Process.Pid, port); err != nil || bound {
		t.Fatalf("another process, port %d taken by this one: bound %v, %v", port, bound, err)
	}
	pc.Close()
	if bound, err := udpBoundBy(os.Getpid(), port); err != nil || bound {
		t.Fatalf("port %d closed: bound %v, %v", port, bound, err)
	}
}
