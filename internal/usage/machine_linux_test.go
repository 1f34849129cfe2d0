package usage

import (
	"os"
	"testing"
	"time"
)

func TestParseProcStat(t *testing.T) {
	t.Parallel()
	stat := []byte(`cpu  9244 31 3733 23417 165 0 226 23 7 0
cpu0 4668 3 1794 11832 29 0 91 12 7 0
cpu1 4576 27 1938 11584 136 0 134 11 0 0
intr 1 2 3
ctxt 42
`)
	got, err := parseProcStat(stat, CPUSet{1: true})
	if err != nil {
		t.Fatal(err)
	}
	// cpu1: busy = user+nice+system+irq+softirq+steal, idle+iowait.
	busy := int64(4576 + 27 + 1938 + 0 + 134 + 11)
	total := busy + 11584 + 136
	if got.Busy != time.Duration(busy)*10*time.Millisecond || got.Total != time.Duration(total)*10*time.Millisecond {
		t.Errorf("cpu1 = %+v, want busy %d total %d ticks", got, busy, total)
	}
	both, err := parseProcStat(stat, CPUSet{0: true, 1: true})
	if err != nil {
		t.Fatal(err)
	}
	if both.Total <= got.Total {
		t.Errorf("two CPUs %v not more than one %v", both.Total, got.Total)
	}
	if _, err := parseProcStat(stat, CPUSet{7: true}); err == nil {
		t.Error("a CPU missing from /proc/stat was accepted")
	}
	if _, err := parseProcStat([]byte("cpu0 1 2 x 4 5\n"), CPUSet{0: true}); err == nil {
		t.Error("a malformed line was accepted")
	}
}

// TestMachineSeesThisProcess spins on this thread and checks that the
// real /proc/stat of the CPUs this process may use counts it as busy.
func TestMachineSeesThisProcess(t *testing.T) {
	cpus, err := AllowedCPUs(0)
	if err != nil || len(cpus) == 0 {
		t.Fatalf("AllowedCPUs(0) = %v, %v", cpus, err)
	}
	if _, err := AllowedCPUs(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	before, err := Machine(cpus)
	if err != nil {
		t.Fatal(err)
	}
	cpu0 := SelfCPU()
	for SelfCPU()-cpu0 < 300*time.Millisecond {
	}
	d, err := Machine(cpus)
	if err != nil {
		t.Fatal(err)
	}
	d = d.Sub(before)
	// The spin itself was at least 300 ms of busy CPU; jiffy accounting
	// may miss a tick or two at either end.
	if d.Busy < 250*time.Millisecond || d.Total < d.Busy {
		t.Errorf("machine times over a 300 ms spin: %+v", d)
	}
}
