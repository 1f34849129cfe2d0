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
