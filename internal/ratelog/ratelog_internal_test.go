package ratelog

import (
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestLimitHandlerCountsWhatItDrops: past the burst, lines are dropped and
// counted, and the count is written when the window ends even if nothing
// else is logged; the next window logs again.
func TestLimitHandlerCountsWhatItDrops(t *testing.T) {
	t.Parallel()
	var out syncBuf
	h := New(slog.NewTextHandler(&out, nil), 2, 200*time.Millisecond)
	log := slog.New(h).With("remote", "192.0.2.1:1")
	for range 5 {
		log.Warn("handshake rejected")
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "suppressed=3") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	got := out.String()
	if n := strings.Count(got, "handshake rejected"); n != 2 || !strings.Contains(got, "suppressed=3") {
		t.Fatalf("log:\n%s\nwant 2 lines, then a count of 3 suppressed", got)
	}
	if strings.Contains(got[strings.Index(got, "suppressed="):], "remote=") {
		t.Errorf("the count line carries a connection's attributes:\n%s", got)
	}
	log.Warn("handshake rejected") // a new window
	h.st.flush()
	if n := strings.Count(out.String(), "handshake rejected"); n != 3 || strings.Count(out.String(), "suppressed=") != 1 {
		t.Errorf("after the window:\n%s", out.String())
	}
}

// syncBuf is a strings.Builder safe for the limiter's timer goroutine.
type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
