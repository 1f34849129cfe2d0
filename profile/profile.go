package profile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"

	"github.com/tlsbench/tlsbench/internal/childproc"
	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/results"
)

// Settings says where the profiles of a run's measured iterations go:
// per case, a CPU profile of this process (the client), of the built-in
// server's child process and of the built-in proxy's, each over the
// case's measured iterations only (not priming, not the warm-up).
type Settings struct {
	// Dir, when set, receives the profiles: Dir/<case>.client.pprof,
	// <case>.server.pprof and <case>.proxy.pprof, where <case> is the
	// case's name with '/' made '_' (and "_<side>" added to a side's
	// server in an interleaved run; the client's profile covers every
	// side, its samples labelled "side"). It is created (0700) when
	// missing.
	Dir string
	// Alloc adds allocation profiles: <case>.client.alloc.pprof ... are
	// what each process allocated since it started, as at the end of the
	// measured iterations, and <case>.client.alloc.base.pprof ... as at
	// their start; the difference (go tool pprof -base) is the case's.
	Alloc bool
}

// Validate checks the directory before anything runs, creating it when
// missing: a profile that cannot be written later is a note, but a
// directory that cannot take one is a mistake to say at once. Its errors
// are *field.Error naming the plan's fields (Profile.Dir, Profile.Alloc).
func (pr Settings) Validate() error {
	if pr.Dir == "" {
		if pr.Alloc {
			return field.Errorf("Profile.Alloc", true, "%s needs %s, the directory the profiles go to", field.Ref("Profile.Alloc"), field.Ref("Profile.Dir"))
		}
		return nil
	}
	if fi, err := os.Stat(pr.Dir); err == nil && !fi.IsDir() {
		return field.Errorf("Profile.Dir", pr.Dir, "is a file, not a directory: give a directory for the profiles")
	}
	if err := os.MkdirAll(pr.Dir, 0o700); err != nil {
		return field.Errorf("Profile.Dir", pr.Dir, "cannot be created: %v; give a directory you can write", unwrapPath(err))
	}
	f, err := os.CreateTemp(pr.Dir, ".tlsbench-profile-*")
	if err != nil {
		return field.Errorf("Profile.Dir", pr.Dir, "cannot be written: %v; give a directory you can write", unwrapPath(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// unwrapPath is the reason of a *os.PathError, whose path the message
// already names.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Child is a child process that profiles itself on request (the
// built-in server's and proxy's children): it writes its profiles to
// the absolute paths it is given.
type Child interface {
	StartCPUProfile(path string) error
	StopCPUProfile() error
	StartAllocProfile(path string) error
	StopAllocProfile(path string) error
}

// profiledProc is one process a case profiles: this one (child nil) or
// a child.
type profiledProc struct {
	base  string // the path without ".pprof"
	what  string // "client", "server", "proxy", in notes
	child Child
	// cpu is this process's CPU profile file while it runs; cpuOn and
	// allocOn say which profiles were started.
	cpu            *os.File
	cpuOn, allocOn bool
	// written are the files written.
	written []string
}

// Case profiles the measured iterations of one case (one side of an
// interleaved case): its Hook is the case's Measuring hook. The files it
// wrote and the profiles it could not write become notes on the record:
// a profile that failed does not fail the benchmark.
type Case struct {
	alloc    bool
	dir      string // as the user gave it, for the notes
	procs    []*profiledProc
	problems []string
}

// fileBase is a case's name made a file name: '/' becomes '_', and an
// interleaved side's name is added.
func fileBase(name, side string) string {
	b := strings.ReplaceAll(name, "/", "_")
	if side != "" {
		b += "_" + side
	}
	return b
}

// Case profiles the case named name on side side ("" alone): this
// process (the client) when client is set (one side of an interleaved
// case has it), and server and proxy when they are children (nil
// otherwise). Nil when the settings take no profiles.
func (pr Settings) Case(name, side string, client bool, server, proxy Child) *Case {
	if pr.Dir == "" {
		return nil
	}
	// The children are given absolute paths (they refuse others); the
	// notes name the files in the directory as the user gave it.
	abs, err := filepath.Abs(pr.Dir)
	if err != nil {
		abs = pr.Dir
	}
	cp := &Case{alloc: pr.Alloc, dir: pr.Dir}
	add := func(what, base string, child Child) {
		cp.procs = append(cp.procs, &profiledProc{base: filepath.Join(abs, base+"."+what), what: what, child: child})
	}
	if client {
		add("client", fileBase(name, ""), nil)
	}
	if server != nil {
		add("server", fileBase(name, side), server)
	}
	if proxy != nil {
		add("proxy", fileBase(name, side), proxy)
	}
	return cp
}

// Hook is the case's Measuring hook (nil when nothing is profiled):
// called with true as the measured iterations begin, false as they end.
func (cp *Case) Hook() func(bool) {
	if cp == nil {
		return nil
	}
	return func(begin bool) {
		if begin {
			cp.begin()
		} else {
			cp.end()
		}
	}
}

// begin starts the profiles: the children's first, this process's last,
// so that its own profile holds as little of the asking as can be.
func (cp *Case) begin() {
	for i := len(cp.procs) - 1; i >= 0; i-- {
		p := cp.procs[i]
		if cp.alloc {
			cp.note(p, "allocation", p.startAlloc())
		}
		cp.note(p, "CPU", p.startCPU())
	}
}

// end stops the profiles started, this process's first. It is safe to
// call more than once.
func (cp *Case) end() {
	for _, p := range cp.procs {
		if p.cpuOn {
			p.cpuOn = false
			cp.done(p, "CPU", p.base+".pprof", p.stopCPU())
		}
		if p.allocOn {
			p.allocOn = false
			err := p.stopAlloc()
			cp.done(p, "allocation", p.base+".alloc.pprof", err)
			if err == nil {
				p.written = append(p.written, filepath.Join(cp.dir, filepath.Base(p.base)+".alloc.base.pprof"))
			}
		}
	}
}

// note records a profile that could not be started.
func (cp *Case) note(p *profiledProc, kind string, err error) {
	if err != nil {
		cp.problems = append(cp.problems, fmt.Sprintf("%s %s profile not written: %v", p.what, kind, err))
	}
}

// done records a stopped profile: its file, or why it is missing.
func (cp *Case) done(p *profiledProc, kind, file string, err error) {
	if err != nil {
		cp.note(p, kind, err)
		return
	}
	p.written = append(p.written, filepath.Join(cp.dir, filepath.Base(file)))
}

func (p *profiledProc) startCPU() error {
	file := p.base + ".pprof"
	if p.child != nil {
		err := p.child.StartCPUProfile(file)
		p.cpuOn = err == nil
		return err
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return unwrapPath(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(file)
		return err
	}
	p.cpu, p.cpuOn = f, true
	return nil
}

func (p *profiledProc) stopCPU() error {
	if p.child != nil {
		return p.child.StopCPUProfile()
	}
	pprof.StopCPUProfile()
	err := p.cpu.Close()
	p.cpu = nil
	return err
}

func (p *profiledProc) startAlloc() error {
	file := p.base + ".alloc.base.pprof"
	var err error
	if p.child != nil {
		err = p.child.StartAllocProfile(file)
	} else {
		err = childproc.WriteAllocProfile(file)
	}
	p.allocOn = err == nil
	return unwrapPath(err)
}

func (p *profiledProc) stopAlloc() error {
	file := p.base + ".alloc.pprof"
	if p.child != nil {
		return p.child.StopAllocProfile(file)
	}
	return unwrapPath(childproc.WriteAllocProfile(file))
}

// client is the profile of this process, when cp has it.
func (cp *Case) client() *profiledProc {
	if cp != nil {
		for _, p := range cp.procs {
			if p.child == nil {
				return p
			}
		}
	}
	return nil
}

// notes are the record's notes on the case's profiles: the files
// written (first those of client, the client's profile of an
// interleaved case that another side holds, when not nil), then each
// that could not be.
func (cp *Case) notes(client *profiledProc) []string {
	if cp == nil {
		return nil
	}
	var files []string
	if client != nil {
		files = append(files, client.written...)
	}
	for _, p := range cp.procs {
		files = append(files, p.written...)
	}
	var out []string
	if len(files) > 0 {
		out = append(out, "profiles: "+strings.Join(files, ", "))
	}
	return append(out, cp.problems...)
}

// Notes ends the profiles of a case's sides (should measuring have
// stopped without saying so) and notes their files on each side's
// record (recs[i] is side profs[i]'s, nil when it has none); the
// client's profile, the first side's, is named on every side's.
func Notes(recs []*results.Record, profs []*Case) {
	for _, cp := range profs {
		if cp != nil {
			cp.end()
		}
	}
	for i, rec := range recs {
		if rec == nil || i >= len(profs) {
			continue
		}
		var client *profiledProc
		if i > 0 {
			client = profs[0].client()
		}
		rec.Notes = append(rec.Notes, profs[i].notes(client)...)
	}
}
