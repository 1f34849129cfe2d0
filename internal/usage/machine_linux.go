package usage

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// AllowedCPUs returns the CPUs process pid may run on (0: this process),
// from sched_getaffinity(2). For this process it is the calling thread's
// mask, which Go's threads share unless a program changes one of them.
func AllowedCPUs(pid int) (CPUSet, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(pid, &set); err != nil {
		return nil, fmt.Errorf("CPU affinity of process %d: %w", pid, err)
	}
	out := CPUSet{}
	for c := 0; c < len(set)*64; c++ {
		if set.IsSet(c) {
			out[c] = true
		}
	}
	return out, nil
}

// Machine returns the cumulative times of the CPUs in cpus, from the
// per-CPU lines of /proc/stat.
func Machine(cpus CPUSet) (MachineTimes, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return MachineTimes{}, err
	}
	return parseProcStat(b, cpus)
}

// parseProcStat sums the cpuN lines of /proc/stat for the CPUs in cpus.
// Their columns (proc(5)) are, in USER_HZ: user nice system idle iowait
// irq softirq steal guest guest_nice; guest time is already counted in
// user and nice, so it is not added again.
func parseProcStat(b []byte, cpus CPUSet) (MachineTimes, error) {
	var busy, total int64
	seen := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) < 5 || !bytes.HasPrefix(f[0], []byte("cpu")) || len(f[0]) == 3 {
			continue
		}
		n, err := strconv.Atoi(string(f[0][3:]))
		if err != nil || !cpus[n] {
			continue
		}
		var col [8]int64
		for i := 0; i < len(col) && i+1 < len(f); i++ {
			v, err := strconv.ParseInt(string(f[i+1]), 10, 64)
			if err != nil {
				return MachineTimes{}, fmt.Errorf("/proc/stat: %s: %v", f[0], err)
			}
			col[i] = v
		}
		idle := col[3] + col[4]
		b := col[0] + col[1] + col[2] + col[5] + col[6] + col[7]
		busy += b
		total += b + idle
		seen++
	}
	if seen == 0 {
		return MachineTimes{}, fmt.Errorf("/proc/stat: none of the CPUs %v is listed", cpuList(cpus))
	}
	tick := time.Second / clockTicks
	return MachineTimes{Busy: time.Duration(busy) * tick, Total: time.Duration(total) * tick}, nil
}
