package server

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// reloadInterval is how often a watched file is checked for changes, at
// most: checking on every handshake would add a stat to what is measured.
var reloadInterval = time.Second

// watchedFile re-reads a file when its modification time or size changes,
// checked lazily from the handshake path at most once per reloadInterval,
// so no goroutine has to be started or stopped.
type watchedFile struct {
	path   string
	load   func([]byte) error // called with the new contents
	onFail func(error)        // a reload failed; the old contents stay

	mu      sync.Mutex
	checked time.Time
	mtime   time.Time
	size    int64
}

// newWatchedFile loads path once (an error here is the caller's to report)
// and returns the watcher.
func newWatchedFile(path string, load func([]byte) error, onFail func(error)) (*watchedFile, error) {
	w := &watchedFile{path: path, load: load, onFail: onFail}
	if err := w.reload(true); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *watchedFile) maybeReload() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if time.Since(w.checked) < reloadInterval {
		return
	}
	if err := w.reloadLocked(false); err != nil && w.onFail != nil {
		w.onFail(err)
	}
}

func (w *watchedFile) reload(force bool) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.reloadLocked(force)
}

func (w *watchedFile) reloadLocked(force bool) error {
	w.checked = time.Now()
	fi, err := os.Stat(w.path)
	if err != nil {
		return err
	}
	if !force && fi.ModTime().Equal(w.mtime) && fi.Size() == w.size {
		return nil
	}
	data, err := os.ReadFile(w.path)
	if err != nil {
		return err
	}
	if err := w.load(data); err != nil {
		return fmt.Errorf("%s: %w", w.path, err)
	}
	w.mtime, w.size = fi.ModTime(), fi.Size()
	return nil
}

// hexLines parses one hex value of n bytes per line; blank lines and
// lines starting with # are skipped.
func hexLines(data []byte, n int) ([][]byte, error) {
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		s = strings.ReplaceAll(s, ":", "")
		b, err := hex.DecodeString(s)
		if err != nil || len(b) != n {
			return nil, fmt.Errorf("line %d: want %d hex digits (%d bytes)", line, 2*n, n)
		}
		out = append(out, b)
	}
	return out, sc.Err()
}

// revocationList holds the SHA-256 thumbprints of revoked client
// certificates, from a file of one hex thumbprint per line.
type revocationList struct {
	file *watchedFile

	mu    sync.RWMutex
	thumb map[[32]byte]bool
}

func newRevocationList(path string, onFail func(error)) (*revocationList, error) {
	r := &revocationList{}
	w, err := newWatchedFile(path, r.set, onFail)
	if err != nil {
		return nil, err
	}
	r.file = w
	return r, nil
}

func (r *revocationList) set(data []byte) error {
	lines, err := hexLines(data, 32)
	if err != nil {
		return err
	}
	m := make(map[[32]byte]bool, len(lines))
	for _, l := range lines {
		m[[32]byte(l)] = true
	}
	r.mu.Lock()
	r.thumb = m
	r.mu.Unlock()
	return nil
}

func (r *revocationList) isRevoked(thumb [32]byte) bool {
	r.file.maybeReload()
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.thumb[thumb]
}
