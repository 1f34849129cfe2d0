package proxy

import (
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/pki"
)

// TestMintRenewal: a kept certificate is minted anew a day before its
// end, or in the second half of its life when its CA cuts it shorter
// than two days; once that time has come, the next request signs again.
func TestMintRenewal(t *testing.T) {
	t.Parallel()
	now := time.Now()
	for _, tc := range []struct {
		caLeft time.Duration
		renew  time.Duration // before the leaf's end
	}{
		{90 * 24 * time.Hour, leafRenewal},
		{72 * time.Hour, leafRenewal},
		{36 * time.Hour, 18 * time.Hour},
		{12 * time.Hour, 6 * time.Hour},
		{2 * time.Hour, time.Hour},
	} {
		ca, err := pki.NewCA(pki.WithValidity(now.Add(-time.Hour), now.Add(tc.caLeft)))
		if err != nil {
			t.Fatal(err)
		}
		m, err := newMinter(ca, nil, LeafECDSAP256, true, 4)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.get("a.test"); err != nil {
			t.Fatal(err)
		}
		e := m.entries["a.test"]
		// Certificate times are whole seconds: allow for the rounding.
		if got := e.cert.Leaf.NotAfter.Sub(e.renew); got < tc.renew-2*time.Second || got > tc.renew+2*time.Second {
			t.Errorf("CA with %v left: renewed %v before the end; want %v", tc.caLeft, got, tc.renew)
		}
		m.get("a.test")
		e.renew = time.Now().Add(-time.Second) // as if that time had come
		m.get("a.test")
		if m.mints.Load() != 2 || m.hits.Load() != 1 {
			t.Errorf("CA with %v left: %d mints, %d hits; want 2 and 1", tc.caLeft, m.mints.Load(), m.hits.Load())
		}
	}
}

// TestRenewAtEnded: a certificate that has already ended (its CA ended
// while the proxy ran) is renewed a minute on, not at every handshake.
func TestRenewAtEnded(t *testing.T) {
	t.Parallel()
	now := time.Now()
	for _, end := range []time.Time{now, now.Add(-time.Hour)} {
		if got := renewAt(end, now); !got.Equal(now.Add(time.Minute)) {
			t.Errorf("ended %v ago: renewed at %v from now, want a minute", now.Sub(end), got.Sub(now))
		}
	}
}
