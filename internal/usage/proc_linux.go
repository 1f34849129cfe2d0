package usage

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc/PID/stat times. It is 100 on
// every Linux architecture Go supports (the kernel fixes it for the ABI).
const clockTicks = 100

// ProcTick is the resolution of the CPU times ProcessTreeCPU reads: a
// process's CPU time there moves in steps of it.
const ProcTick = time.Second / clockTicks

// ProcessTreeCPU returns the CPU time used so far by process pid and all its
// living descendants (for example an nginx master and its workers), read
// from /proc. Descendants that have exited are counted through their
// parent's cutime/cstime once reaped.
func ProcessTreeCPU(pid int) (time.Duration, error) {
	children, err := childrenOf()
	if err != nil {
		return 0, err
	}
	total, err := pidCPU(pid, true)
	if err != nil {
		// The caller names the process (by the setting that gave its
		// pid): the error is the reason alone.
		return 0, err
	}
	queue := append([]int(nil), children[pid]...)
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if t, err := pidCPU(p, false); err == nil {
			total += t
		}
		queue = append(queue, children[p]...)
	}
	return total, nil
}

// ProcessTree returns process pid and its living descendants, pid
// first, read from /proc.
func ProcessTree(pid int) ([]int, error) {
	children, err := childrenOf()
	if err != nil {
		return nil, err
	}
	if _, err := statFields(pid); err != nil {
		return nil, err
	}
	tree := []int{pid}
	for i := 0; i < len(tree); i++ {
		tree = append(tree, children[tree[i]]...)
	}
	return tree, nil
}

// statFields returns the fields after the command name of /proc/PID/stat
// (the name is in parentheses and may contain spaces).
func statFields(pid int) ([][]byte, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("no such process")
		}
		return nil, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, fmt.Errorf("unexpected /proc/%d/stat format", pid)
	}
	return bytes.Fields(b[i+1:]), nil
}

// pidCPU reads utime+stime (fields 14 and 15 of proc(5)); withChildren
// adds cutime+cstime of reaped children.
func pidCPU(pid int, withChildren bool) (time.Duration, error) {
	f, err := statFields(pid)
	if err != nil {
		return 0, err
	}
	// f[0] is field 3 (state); field n is f[n-3].
	if len(f) < 15 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat format", pid)
	}
	idx := []int{14, 15}
	if withChildren {
		idx = append(idx, 16, 17)
	}
	var ticks int64
	for _, n := range idx {
		v, err := strconv.ParseInt(string(f[n-3]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("unexpected /proc/%d/stat field %d: %v", pid, n, err)
		}
		ticks += v
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// childrenOf maps each pid to its direct children, from /proc/*/stat.
func childrenOf() (map[int][]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	m := make(map[int][]int)
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f, err := statFields(pid)
		if err != nil || len(f) < 2 {
			continue // exited meanwhile
		}
		ppid, err := strconv.Atoi(string(f[1]))
		if err != nil {
			continue
		}
		m[ppid] = append(m[ppid], pid)
	}
	return m, nil
}

// IsAncestorOfSelf reports whether pid is this process or one of its
// ancestors (its parent, its parent's parent, up to init). Such a
// process's tree holds this one: its CPU would include tlsbench's own.
func IsAncestorOfSelf(pid int) (bool, error) {
	for p := os.Getpid(); p > 0; {
		if p == pid {
			return true, nil
		}
		f, err := statFields(p)
		if err != nil || len(f) < 2 {
			return false, fmt.Errorf("reading the parent of process %d: %v", p, err)
		}
		ppid, err := strconv.Atoi(string(f[1]))
		if err != nil {
			return false, fmt.Errorf("unexpected /proc/%d/stat parent: %v", p, err)
		}
		p = ppid
	}
	return false, nil
}

// EffectiveUID returns the effective user id of process pid, from the
// Uid line of /proc/PID/status (real, effective, saved, filesystem).
func EffectiveUID(pid int) (int, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0, err
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte("Uid:")); ok {
			if f := bytes.Fields(rest); len(f) >= 2 {
				return strconv.Atoi(string(f[1]))
			}
		}
	}
	return 0, fmt.Errorf("no Uid line in /proc/%d/status", pid)
}
