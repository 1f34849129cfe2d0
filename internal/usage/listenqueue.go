package usage

// ListenQueue is what the kernel's TCP listeners dropped, cumulatively,
// as its TcpExt counters count them (/proc/net/netstat). Overflows are
// connections that found a listening socket's accept queue full (its
// backlog, which the server chose, smaller than the connections waiting
// to be accepted): the kernel drops their SYN, or the ACK that ends
// their TCP handshake, and the client waits for its SYN retransmit
// (1 s, then 3 s...) as if the network had lost it. Drops count those
// and every other connection a listener dropped (its SYN queue full
// without SYN cookies, no memory).
//
// The counters are the network namespace's, for every process in it:
// another server on the machine that overflows its own queue counts
// too.
type ListenQueue struct {
	Overflows, Drops int64
}

// Sub returns the counts between earlier and q, and false when either
// went backwards (another network namespace, a counter reset): then
// they are unknown.
func (q ListenQueue) Sub(earlier ListenQueue) (ListenQueue, bool) {
	d := ListenQueue{Overflows: q.Overflows - earlier.Overflows, Drops: q.Drops - earlier.Drops}
	if d.Overflows < 0 || d.Drops < 0 {
		return ListenQueue{}, false
	}
	return d, true
}

// Add returns the counts of q and o together.
func (q ListenQueue) Add(o ListenQueue) ListenQueue {
	return ListenQueue{Overflows: q.Overflows + o.Overflows, Drops: q.Drops + o.Drops}
}

// ListenCount sums the machine's listen-queue counters over spans of a
// benchmark case: the spans between pairs of readings.
type ListenCount struct {
	q     ListenQueue
	spans int
	// Lost is set when a span's counters could not be read, or went
	// back: the sum is then unknown.
	lost bool
}

// ListenReading is the counters read at one boundary; on is false when
// the case does not count them.
type ListenReading struct {
	Q   ListenQueue
	Err error
	On  bool
}

// Add counts the span between two readings.
func (c *ListenCount) Add(before, after ListenReading) {
	if !before.On || !after.On {
		return
	}
	d, ok := after.Q.Sub(before.Q)
	if before.Err != nil || after.Err != nil || !ok {
		c.lost = true
		return
	}
	c.q = c.q.Add(d)
	c.spans++
}

// Sum is the counts over the spans, and whether it is known: it covers
// every span counted, and there was one.
func (c *ListenCount) Sum() (ListenQueue, bool) {
	if c == nil || c.spans == 0 || c.lost {
		return ListenQueue{}, false
	}
	return c.q, true
}

// Merge adds the spans of o.
func (c *ListenCount) Merge(o ListenCount) {
	c.q = c.q.Add(o.q)
	c.spans += o.spans
	c.lost = c.lost || o.lost
}

// ReadListen reads the counters when on (the case counts them).
func ReadListen(on bool) ListenReading {
	if !on {
		return ListenReading{}
	}
	q, err := ReadListenQueue()
	return ListenReading{Q: q, Err: err, On: true}
}
