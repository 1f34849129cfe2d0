package tail

import (
	"bytes"
	"sync"
)

// Buffer is an io.Writer that keeps the last Max bytes written to it. It is
// safe for concurrent use.
type Buffer struct {
	Max int

	mu  sync.Mutex
	buf []byte
}

// Write keeps the end of what was written; it never fails. The buffer
// holds up to twice Max and moves its last Max bytes to the front when
// it fills, so that a child that prints a line per connection costs no
// allocation per line (a benchmark against it would count them).
func (t *Buffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	written := len(p)
	if len(p) > t.Max {
		p = p[len(p)-t.Max:]
	}
	if len(t.buf)+len(p) > 2*t.Max {
		n := copy(t.buf, t.buf[max(0, len(t.buf)-t.Max+len(p)):])
		t.buf = t.buf[:n]
	}
	if t.buf == nil {
		t.buf = make([]byte, 0, 2*t.Max)
	}
	t.buf = append(t.buf, p...)
	return written, nil
}

// kept is the last Max bytes.
func (t *Buffer) kept() []byte { return t.buf[max(0, len(t.buf)-t.Max):] }

// String returns the last Max bytes written.
func (t *Buffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.kept())
}

// LastLine returns the last non-empty line kept, trimmed.
func (t *Buffer) LastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := bytes.Split(bytes.TrimSpace(t.kept()), []byte("\n"))
	return string(bytes.TrimSpace(lines[len(lines)-1]))
}
