package childproc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
)

// Profile requests, one line each: the request word, then for those
// that take one a space and the absolute path of the file to write
// (the rest of the line). The answer is one line, {} when done or
// {"error": "..."}; the stops answer once their file is complete and
// closed.
//
//	cpu-profile-start PATH    start a CPU profile of this process into PATH
//	cpu-profile-stop          stop it and close PATH
//	alloc-profile-start PATH  write the allocations so far (after a GC) to PATH
//	alloc-profile-stop PATH   write them again, to PATH: the difference of
//	                          the two (go tool pprof -base) is what was
//	                          allocated in between
//
// A second start of a kind while one runs, and a stop without a start,
// are answered with an error; so is a path that is not absolute. The
// channel is its parent's alone, so a path is the parent's to choose.
const (
	ReqCPUProfileStart   = "cpu-profile-start"
	ReqCPUProfileStop    = "cpu-profile-stop"
	ReqAllocProfileStart = "alloc-profile-start"
	ReqAllocProfileStop  = "alloc-profile-stop"
)

// profiles is a child's profiles in progress.
type profiles struct {
	cpu   *os.File // the CPU profile being written, nil: none
	alloc bool     // an allocation profile was started
}

// answer handles a profile request (ok false: req is not one).
func (p *profiles) answer(req string) (ans any, ok bool) {
	word, arg, _ := strings.Cut(req, " ")
	var err error
	switch word {
	case ReqCPUProfileStart:
		err = p.startCPU(arg)
	case ReqCPUProfileStop:
		err = p.stopCPU()
	case ReqAllocProfileStart:
		err = p.writeAlloc(arg, true)
	case ReqAllocProfileStop:
		err = p.writeAlloc(arg, false)
	default:
		return nil, false
	}
	if err != nil {
		return answered{Error: err.Error()}, true
	}
	return struct{}{}, true
}

func (p *profiles) startCPU(path string) error {
	if p.cpu != nil {
		return errors.New("a CPU profile is already being written")
	}
	f, err := createProfile(path)
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	p.cpu = f
	return nil
}

// stopCPU stops the CPU profile and closes its file.
func (p *profiles) stopCPU() error {
	if p.cpu == nil {
		return errors.New("no CPU profile is being written")
	}
	pprof.StopCPUProfile()
	f := p.cpu
	p.cpu = nil
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing the CPU profile: %w", err)
	}
	return nil
}

// writeAlloc writes the allocation profile so far to path: at the start
// (start true) or the end of an allocation profile.
func (p *profiles) writeAlloc(path string, start bool) error {
	if start == p.alloc {
		if start {
			return errors.New("an allocation profile is already started")
		}
		return errors.New("no allocation profile was started")
	}
	if err := WriteAllocProfile(path); err != nil {
		return err
	}
	p.alloc = start
	return nil
}

// close stops a CPU profile left running (the parent quit or died
// before stopping it), so that its file is complete.
func (p *profiles) close() {
	if p.cpu != nil {
		p.stopCPU()
	}
}

// WriteAllocProfile writes this process's allocation profile ("allocs":
// every sampled allocation since it started) to path, after a garbage
// collection so that it includes the allocations up to now. Two of them
// taken at the start and the end of some work, the first given to go
// tool pprof as -base, show the work's allocations.
func WriteAllocProfile(path string) error {
	f, err := createProfile(path)
	if err != nil {
		return err
	}
	// The profile is published by garbage collections: without one, the
	// allocations since the last would be missing.
	runtime.GC()
	err = pprof.Lookup("allocs").WriteTo(f, 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing the allocation profile: %w", err)
	}
	return nil
}

// createProfile creates (or truncates) a profile's file, readable by
// its owner only.
func createProfile(path string) (*os.File, error) {
	if path == "" || !filepath.IsAbs(path) {
		return nil, fmt.Errorf("profile path %q is not absolute", path)
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
}

// answered is an answer that may say the request failed.
type answered struct {
	Error string `json:"error,omitempty"`
}

// StartCPUProfile asks the child to start a CPU profile into path, an
// absolute path.
func (c *Child) StartCPUProfile(path string) error {
	return c.profileRequest(ReqCPUProfileStart, path)
}

// StopCPUProfile asks the child to stop its CPU profile; it returns once
// the file is complete.
func (c *Child) StopCPUProfile() error { return c.profileRequest(ReqCPUProfileStop, "") }

// StartAllocProfile asks the child to write its allocations so far to
// path (the base of an allocation profile).
func (c *Child) StartAllocProfile(path string) error {
	return c.profileRequest(ReqAllocProfileStart, path)
}

// StopAllocProfile asks the child to write its allocations so far to
// path, the end of the allocation profile StartAllocProfile began.
func (c *Child) StopAllocProfile(path string) error {
	return c.profileRequest(ReqAllocProfileStop, path)
}

func (c *Child) profileRequest(req, path string) error {
	if strings.ContainsAny(path, "\r\n") {
		return fmt.Errorf("%s: a profile path cannot hold a line break: %q", c.what, path)
	}
	if path != "" {
		req += " " + path
	}
	var a answered
	if err := c.Request(req, &a); err != nil {
		return err
	}
	if a.Error != "" {
		return fmt.Errorf("%s: %s", c.what, a.Error)
	}
	return nil
}
