package ktls

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func crOf(i int) [32]byte {
	var cr [32]byte
	cr[0], cr[1], cr[31] = byte(i>>8), byte(i), 0x77
	return cr
}

func TestKeyLogDemux(t *testing.T) {
	t.Parallel()
	var tee bytes.Buffer
	kl := &KeyLog{Tee: &tee}
	a, b := crOf(1), crOf(2)
	lines := []string{
		fmt.Sprintf("CLIENT_HANDSHAKE_TRAFFIC_SECRET %x %x\n", a, bytes.Repeat([]byte{1}, 32)),
		fmt.Sprintf("CLIENT_TRAFFIC_SECRET_0 %x %x\n", a, bytes.Repeat([]byte{2}, 32)),
		fmt.Sprintf("CLIENT_RANDOM %x %x\n", b, bytes.Repeat([]byte{9}, 48)),
		fmt.Sprintf("SERVER_TRAFFIC_SECRET_0 %x %x\n", a, bytes.Repeat([]byte{3}, 48)),
		"# a comment\n", "garbage\n", "CLIENT_RANDOM zz 00\n",
	}
	all := strings.Join(lines, "")
	// Split mid-line to exercise buffering of partial lines.
	kl.Write([]byte(all[:50]))
	kl.Write([]byte(all[50:]))
	if tee.String() != all {
		t.Error("Tee did not receive the lines unchanged")
	}
	if kl.Len() != 2 {
		t.Fatalf("Len = %d, want 2", kl.Len())
	}
	sa, ok := kl.take(a)
	if !ok || !bytes.Equal(sa.clientTraffic0, bytes.Repeat([]byte{2}, 32)) || !bytes.Equal(sa.serverTraffic0, bytes.Repeat([]byte{3}, 48)) || sa.master != nil {
		t.Errorf("TLS 1.3 entry: %+v %v", sa, ok)
	}
	if _, ok := kl.take(a); ok {
		t.Error("entry not removed once consumed")
	}
	sb, ok := kl.take(b)
	if !ok || !bytes.Equal(sb.master, bytes.Repeat([]byte{9}, 48)) {
		t.Errorf("TLS 1.2 entry: %+v %v", sb, ok)
	}
	if kl.Len() != 0 {
		t.Errorf("Len = %d after consuming everything", kl.Len())
	}
}

func TestKeyLogBoundedAndConcurrent(t *testing.T) {
	t.Parallel()
	kl := &KeyLog{MaxEntries: 100}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				cr := crOf(g*1000 + i)
				fmt.Fprintf(kl, "CLIENT_RANDOM %x %x\n", cr, bytes.Repeat([]byte{byte(i)}, 48))
				if i%3 == 0 {
					kl.Forget(cr)
				}
			}
		}(g)
	}
	wg.Wait()
	if n := kl.Len(); n > 100 {
		t.Fatalf("Len = %d, exceeds MaxEntries", n)
	}
	kl.mu.Lock()
	orderLen := len(kl.order)
	kl.mu.Unlock()
	if orderLen > 2*100+16 {
		t.Errorf("order slice grew to %d", orderLen)
	}
	// A new entry is kept, the oldest are gone.
	fmt.Fprintf(kl, "CLIENT_RANDOM %x %x\n", crOf(9999), bytes.Repeat([]byte{1}, 48))
	if _, ok := kl.take(crOf(9999)); !ok {
		t.Error("newest entry evicted")
	}
	for g := 0; g < 8; g++ {
		if _, ok := kl.take(crOf(g*1000 + 1)); ok {
			t.Errorf("entry %d not evicted", g*1000+1)
		}
	}
}
