package command

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/tlsbench/tlsbench/results"
)

// OutFile is run's --out FILE. Records go, each as soon as it is measured,
// to a temporary file beside FILE, which replaces FILE when the run ends
// (finished, failed or interrupted) if it holds anything: a run that
// measured nothing leaves an older FILE as it was, and FILE is never seen
// half-written. A FILE that is not a regular file (/dev/stdout, a pipe) is
// written directly.
type OutFile struct {
	path    string // as given, for messages
	target  string // path with symbolic links resolved: what is replaced
	tmp     string // "" when writing directly
	f       *os.File
	w       *results.Writer
	written int                 // records written
	cases   map[string]struct{} // the names of the cases they belong to
	err     error               // the first write error; no record is written after it
}

// CreateOutFile checks that FILE can be written (its directory, and FILE
// itself if it exists) and opens the temporary file, before anything is
// measured.
func CreateOutFile(path string) (*OutFile, error) {
	b, err := openBeside(path, "results.jsonl", 0o644)
	if err != nil {
		return nil, err
	}
	return &OutFile{path: path, target: b.target, tmp: b.tmp, f: b.f, w: results.NewWriter(b.f)}, nil
}

// beside is a file written in place of FILE: a temporary file beside it
// (tmp), which is to be renamed to target, FILE with symbolic links
// resolved, when it is complete; or, for a FILE that is not a regular
// file (/dev/stdout, a pipe), FILE itself (tmp empty).
type beside struct {
	target, tmp string
	f           *os.File
}

// openBeside checks that path can be replaced (its directory, and the
// file itself if it exists) and opens what is written in its place: a new
// file gets mode (less the umask), one that replaces a file that file's
// mode. example names a file, for the message when path is a directory.
func openBeside(path, example string, mode os.FileMode) (beside, error) {
	b := beside{target: path}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		b.target = real
	}
	fi, err := os.Stat(b.target)
	switch {
	case err == nil && fi.IsDir():
		return b, fmt.Errorf("%s is a directory; name a file, e.g. %s", path, filepath.Join(path, example))
	case err == nil && !fi.Mode().IsRegular():
		// A device or a pipe: nothing to keep, nothing to rename.
		b.f, err = os.OpenFile(b.target, os.O_WRONLY, 0)
		return b, err
	case err == nil:
		// Refuse now what the user could not overwrite, rather than
		// replace a write-protected file at the end.
		f, err := os.OpenFile(b.target, os.O_WRONLY, 0)
		if err != nil {
			return b, err
		}
		f.Close()
	case !errors.Is(err, fs.ErrNotExist):
		return b, err
	}
	b.f, b.tmp, err = createTemp(b.target, mode)
	if err == nil && fi != nil {
		b.f.Chmod(fi.Mode().Perm()) // the new file keeps the old one's mode
	}
	return b, err
}

// StdoutFile is --out -: the records written to w as they come.
func StdoutFile(w io.Writer) *OutFile {
	return &OutFile{path: "stdout", target: "-", w: results.NewWriter(w)}
}

// createTemp creates FILE.partial-RANDOM beside target, with mode less
// the umask.
func createTemp(target string, mode os.FileMode) (*os.File, string, error) {
	for i := 0; ; i++ {
		var b [6]byte
		rand.Read(b[:])
		name := target + ".partial-" + hex.EncodeToString(b[:])
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) && i < 10 {
			continue
		}
		if err != nil {
			// The temporary name means nothing to the user: name the
			// directory that cannot be written.
			var pe *fs.PathError
			if errors.As(err, &pe) {
				return nil, "", fmt.Errorf("cannot create a file in %s: %w", filepath.Dir(target), pe.Err)
			}
			return nil, "", err
		}
		return f, name, nil
	}
}

// Write adds a record. A write error (a full disk) is kept for the end
// rather than returned: the run goes on, and the table still shows every
// case measured.
func (o *OutFile) Write(rec *results.Record) {
	if o.err != nil {
		return
	}
	if err := o.w.Write(rec); err != nil {
		o.err = err
		return
	}
	o.written++
	if o.cases == nil {
		o.cases = map[string]struct{}{}
	}
	o.cases[rec.Name] = struct{}{}
}

// CountCases counts the cases of recs: an interleaved run writes one
// record per side of a case.
func CountCases(recs []results.Record) int {
	names := map[string]struct{}{}
	for i := range recs {
		names[recs[i].Name] = struct{}{}
	}
	return len(names)
}

// Finish closes the file and, when it holds records (or the run succeeded
// with none), puts it in FILE's place; otherwise it removes it and FILE
// stays as it was. measured is the number of cases measured (CountCases).
// It returns the one-line error for a write that failed.
func (o *OutFile) Finish(measured int, runOK bool) error {
	err := o.err
	if o.tmp != "" && err == nil {
		err = o.f.Sync() // a full disk may only say so now
	}
	if o.f == nil {
		// stdout: nothing to close.
	} else if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	o.f = nil // finished: nothing left for Abandon
	if o.tmp == "" {
		if err != nil {
			return fmt.Errorf("--out %s: %v after %d of %d cases (every case measured is in the report on stdout)",
				o.path, Cause(err), len(o.cases), measured)
		}
		return nil
	}
	if err == nil && (o.written > 0 || runOK) {
		if err = os.Rename(o.tmp, o.target); err == nil {
			return nil
		}
	}
	os.Remove(o.tmp)
	if err != nil {
		return fmt.Errorf("--out %s: %v after %d of %d cases; %s (every case measured is in the report on stdout)",
			o.path, Cause(err), len(o.cases), measured, o.Unchanged())
	}
	return nil
}

// Cause is the system's reason for a failed file operation ("no space
// left on device"), without the temporary file's name.
func Cause(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	var errno syscall.Errno
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	case errors.As(err, &errno):
		return errno
	}
	return err
}

// Abandon removes the temporary file of a run that ended before finish
// (a usage error found late): FILE stays as it was.
func (o *OutFile) Abandon() {
	if o.f == nil {
		return
	}
	o.f.Close()
	if o.tmp != "" {
		os.Remove(o.tmp)
	}
}

// Unchanged says what became of FILE when the new results were not put
// in its place.
func (o *OutFile) Unchanged() string {
	if _, err := os.Stat(o.target); err == nil {
		return o.path + " was left as it was"
	}
	return o.path + " was not written"
}

// Summary says where the records of an interrupted run are.
func (o *OutFile) Summary() string {
	if o.written == 0 {
		return "nothing was measured; " + o.Unchanged()
	}
	if len(o.cases) == 1 {
		return "the 1 case measured is in " + o.path
	}
	return fmt.Sprintf("the %d cases measured are in %s", len(o.cases), o.path)
}

// commit closes the file and puts it in FILE's place.
func (b beside) commit() error {
	err := b.f.Close()
	if err == nil && b.tmp != "" {
		err = os.Rename(b.tmp, b.target)
	}
	if err != nil && b.tmp != "" {
		os.Remove(b.tmp)
	}
	return err
}

// discard closes the file and removes it: FILE stays as it was.
func (b beside) discard() {
	b.f.Close()
	if b.tmp != "" {
		os.Remove(b.tmp)
	}
}

// Path is FILE as given, for messages.
func (o *OutFile) Path() string { return o.path }

// Commit closes a file whose records are all written (merge's -o) and
// puts it in FILE's place; on a failure FILE stays as it was
// (Unchanged says so).
func (o *OutFile) Commit() error {
	err := o.err
	if err == nil && o.tmp != "" {
		err = o.f.Sync()
	}
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	o.f = nil
	if err == nil && o.tmp != "" {
		err = os.Rename(o.tmp, o.target)
	}
	if err != nil && o.tmp != "" {
		os.Remove(o.tmp)
	}
	return err
}
