package stats

import (
	"errors"
	"testing"
	"time"
)

// TestLatencySub checks that a cumulative histogram read at two moments
// differences to exactly the histogram of what was recorded in between,
// through the encoding a server ships it in.
func TestLatencySub(t *testing.T) {
	t.Parallel()
	cum := NewLatency()
	recordRange(cum, 1, 5000) // before the window
	before, err := cum.Encode()
	if err != nil {
		t.Fatal(err)
	}
	want := NewLatency()
	for _, us := range []int{7, 700, 7000, 70000, 7000000} {
		for range 3 {
			cum.Record(time.Duration(us) * time.Microsecond)
			want.Record(time.Duration(us) * time.Microsecond)
		}
	}
	after, err := cum.Encode()
	if err != nil {
		t.Fatal(err)
	}
	b, err := DecodeLatency(before)
	if err != nil {
		t.Fatal(err)
	}
	a, err := DecodeLatency(after)
	if err != nil {
		t.Fatal(err)
	}
	d, err := a.Sub(b)
	if err != nil {
		t.Fatal(err)
	}
	if d.Count() != 15 {
		t.Fatalf("count %d, want 15", d.Count())
	}
	for _, q := range []float64{0, 10, 50, 90, 99, 99.9, 100} {
		if got, w := d.PercentileUS(q), want.PercentileUS(q); got != w {
			t.Errorf("p%v = %v, want %v", q, got, w)
		}
	}
	if got, w := d.MaxUS(), want.MaxUS(); got != w {
		t.Errorf("max %v, want %v", got, w)
	}
	// The operands are unchanged.
	if a.Count() != 5015 || b.Count() != 5000 {
		t.Errorf("operands changed: %d, %d", a.Count(), b.Count())
	}
}

func TestLatencySubEdges(t *testing.T) {
	t.Parallel()
	l := NewLatency()
	recordRange(l, 10, 20)
	tests := []struct {
		name    string
		earlier *Latency
		count   int64
		err     error
	}{
		{"nil earlier is empty", nil, 11, nil},
		{"itself leaves nothing", l.Clone(), 0, nil},
		{"zero value", &Latency{}, 11, nil},
		{"earlier has what later lacks", func() *Latency {
			e := NewLatency()
			e.Record(5 * time.Millisecond)
			return e
		}(), 0, ErrNotLater},
		{"earlier has more in one bucket", func() *Latency {
			e := l.Clone()
			e.Record(15 * time.Microsecond)
			return e
		}(), 0, ErrNotLater},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := l.Sub(tt.earlier)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err %v, want %v", err, tt.err)
			}
			if err == nil && d.Count() != tt.count {
				t.Errorf("count %d, want %d", d.Count(), tt.count)
			}
		})
	}
	if (&Latency{}).MaxUS() != 0 || NewLatency().MaxUS() != 0 {
		t.Error("an empty histogram's max is not 0")
	}
}
