package childproc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Self is what a child's Main is given of the process it runs in, besides
// its control channel.
type Self struct {
	// Stderr takes the service's log, whose last lines explain to the
	// parent a child that died.
	Stderr io.Writer
	// Build names the program (its tlsbench and Go versions, e.g.
	// "v1.2.0 (go1.26.8)"), for a service that reports it; "" when
	// unknown. The services cannot know it themselves: the version is
	// the results package's, set when the binary is linked.
	Build string
}

// Main is a service's body in a child process: it serves its parent over
// control until the parent says quit or goes away.
type Main func(ctx context.Context, control net.Conn, self Self) error

var (
	mainsMu sync.Mutex
	mains   = map[string]Main{}
)

// Register names a service's Main by the command word its parent starts
// it with (its Options.Args[0]: "serve", "proxy"). Each service registers
// itself, so that any binary linking it can run it as a child
// (RunIfChild) without knowing the command line that would.
func Register(command string, m Main) {
	mainsMu.Lock()
	defer mainsMu.Unlock()
	if _, dup := mains[command]; dup {
		panic("childproc: " + command + " registered twice")
	}
	mains[command] = m
}

// Lookup is the Main registered for command, nil when none is.
func Lookup(command string) Main {
	mainsMu.Lock()
	defer mainsMu.Unlock()
	return mains[command]
}

// ControlFlag is the flag Start appends to a child's arguments.
const ControlFlag = "control-fd"

// ChildArgs finds, in a child's arguments after the program name, its
// command word and the control channel's descriptor: "serve
// --control-fd 3" (one or two dashes, the value after a space or an =).
// ok is false for arguments that do not start a child.
func ChildArgs(args []string) (command string, fd int, ok bool) {
	if len(args) == 0 {
		return "", 0, false
	}
	for i := 1; i < len(args); i++ {
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "-") || name != ControlFlag {
			continue
		}
		if !hasValue && i+1 < len(args) {
			value = args[i+1]
		}
		n, err := strconv.Atoi(value)
		return args[0], n, err == nil && n >= 0
	}
	return "", 0, false
}

// ControlConn is the control channel a parent handed its child as
// descriptor fd. Its one error is for whoever starts a child by hand: the
// descriptor is not that socket.
func ControlConn(fd int) (net.Conn, error) {
	notOurs := fmt.Errorf("--%s %d is not a socket its parent gave it: it is for tlsbench run", ControlFlag, fd)
	f := os.NewFile(uintptr(fd), "control")
	if f == nil {
		return nil, notOurs
	}
	conn, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return nil, notOurs
	}
	return conn, nil
}

// RunIfChild runs a registered service and exits, when the process's
// arguments start a child of it (see ChildArgs); otherwise it returns at
// once. A test binary that code under test starts as its child server or
// proxy calls it first in TestMain. Like tlsbench, the child stops on
// SIGINT and SIGTERM, prints its error as one line "tlsbench: ..." on
// stderr, and exits 1 (2 for a descriptor that is not its channel, 130
// when interrupted).
func RunIfChild(build string) {
	command, fd, ok := ChildArgs(os.Args[1:])
	if !ok {
		return
	}
	m := Lookup(command)
	if m == nil {
		return
	}
	os.Exit(runChild(m, fd, build))
}

func runChild(m Main, fd int, build string) int {
	conn, err := ControlConn(fd)
	if err != nil {
		fmt.Fprintln(os.Stderr, servicePrefix+err.Error())
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err = m(ctx, conn, Self{Stderr: os.Stderr, Build: build})
	stop()
	switch {
	case err == nil:
		return 0
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(os.Stderr, servicePrefix+"interrupted")
		return 130
	}
	fmt.Fprintln(os.Stderr, servicePrefix+strings.ReplaceAll(err.Error(), "\n", " "))
	return 1
}
