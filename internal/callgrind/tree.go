package callgrind

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// A program that is not tlsbench (an OpenSSL, GnuTLS or nginx server)
// cannot read its own count: it is counted from outside. ShellCommand
// runs it under callgrind with valgrind's gdbserver on (--vgdb=yes), and
// a Tree asks each of its processes for a dump through vgdb, the
// command valgrind ships for that (callgrind_control does the same),
// then adds up the dumps. The dump is valgrind's own work, not the
// program's: only the few instructions of a system call that vgdb
// interrupts and the program restarts are counted, the same at every
// reading.

// vgdbTimeout bounds one process's dump: vgdb waits up to 100 ms for a
// process blocked in a system call before it interrupts it, and the
// dump of a large program takes a fraction of a second more.
const vgdbTimeout = 10 * time.Second

// ErrNoVgdb is Tree's error where vgdb cannot be run.
var ErrNoVgdb = errors.New("counting another program's instructions needs vgdb (valgrind's gdbserver client) on the PATH")

// ShellCommand is the command line that runs the shell command command
// (by /bin/sh -c) under callgrind, with the programs it starts (its
// children, and what they exec) counted too, their dumps going to files
// in dir and their gdbserver pipes there too, for a Tree of dir to read.
// Its environment is the caller's: the program is not a Go program of
// this module.
func ShellCommand(dir, command string) (exe string, argv []string, err error) {
	if err := TreeAvailable(); err != nil {
		return "", nil, err
	}
	exe, _ = exec.LookPath("valgrind")
	return exe, []string{
		"--tool=callgrind", "-q", "--dump-line=no", "--trace-children=yes",
		"--vgdb=yes", "--vgdb-prefix=" + filepath.Join(dir, "vgdb"),
		"--callgrind-out-file=" + filepath.Join(dir, "callgrind.out.%p"),
		"/bin/sh", "-c", command,
	}, nil
}

// Tree is the count of the instructions of the processes ShellCommand
// started, with dir the directory it was given.
type Tree struct {
	Dir   string
	mu    sync.Mutex
	total int64
	err   error
}

// Instructions asks each process of pids (the living processes the
// command started) for a dump and returns what they have executed since
// the first reading's dumps, with the work of any process that has exited
// since its last dump missing; an error when a dump could not be had,
// after which the count is never known again (a count with a hole is
// not one).
func (t *Tree) Instructions(ctx context.Context, pids []int) (int64, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return 0, t.err
	}
	for _, pid := range pids {
		if err := t.dump(ctx, pid); err != nil {
			t.err = err
			return 0, err
		}
	}
	var sum int64
	for _, pid := range pids {
		n, err := readDumps(filepath.Join(t.Dir, fmt.Sprintf("callgrind.out.%d.", pid)))
		if err != nil {
			t.err = err
			return 0, err
		}
		sum += n
	}
	t.total += sum
	return t.total, nil
}

// dump has process pid write a dump of its count since its last one.
func (t *Tree) dump(ctx context.Context, pid int) error {
	ctx, cancel := context.WithTimeout(ctx, vgdbTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "vgdb", "--vgdb-prefix="+filepath.Join(t.Dir, "vgdb"),
		fmt.Sprintf("--pid=%d", pid), "dump").CombinedOutput()
	if err != nil {
		last := strings.TrimSpace(string(out))
		if i := strings.LastIndexByte(last, '\n'); i >= 0 {
			last = last[i+1:]
		}
		if ctx.Err() != nil {
			return fmt.Errorf("process %d did not dump its count within %v (vgdb)", pid, vgdbTimeout)
		}
		return fmt.Errorf("process %d did not dump its count (vgdb: %v: %s): is it under callgrind, and run by this user?", pid, err, last)
	}
	return nil
}

// Err is why the count is no longer known, nil while it is.
func (t *Tree) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// TreeAvailable reports whether ShellCommand and Tree can run: nil,
// ErrNoValgrind or ErrNoVgdb.
func TreeAvailable() error {
	if err := Available(); err != nil {
		return err
	}
	if _, err := exec.LookPath("vgdb"); err != nil {
		return ErrNoVgdb
	}
	return nil
}
