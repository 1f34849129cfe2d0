package probe

// QUIC is what a probe over QUIC (Options.QUIC) found: TLS 1.3 over
// UDP, with early data.
type QUIC struct {
	// Handshake: a full QUIC handshake completed.
	Handshake Finding `json:"handshake"`
	// Negotiated in that handshake.
	Version     string `json:"quic_version,omitempty"` // "v1", "v2"
	CipherSuite string `json:"cipher_suite,omitempty"`
	Group       string `json:"group,omitempty"`
	ALPN        string `json:"alpn,omitempty"`
	// Response is the answer to the request (HTTP/3's status line, or
	// "echo" for tlsbench's ping).
	Response string `json:"response,omitempty"`
	// Versions: the QUIC versions the server completes a handshake in,
	// each offered alone.
	Versions []QUICVersion `json:"versions"`
	// Tickets received on the full-handshake connection.
	Tickets QUICTickets `json:"tickets"`
	// Resumption: a ticket resumed a second connection (without early
	// data).
	Resumption Finding `json:"resumption"`
	// EarlyData: the server accepted a request sent as early data
	// (0-RTT) on a fresh ticket.
	EarlyData Finding `json:"early_data"`
	// EarlyDataReuse: the server accepted early data again on the same
	// ticket's second use, by a client that makes a new handshake with
	// it (what single-use tickets prevent).
	EarlyDataReuse Finding `json:"early_data_ticket_reuse"`
	// Replay: the server processed the early data of a replayed first
	// flight (the same datagrams, sent again from another address).
	Replay Replay `json:"replay"`
}

// QUICVersion is one QUIC version's answer.
type QUICVersion struct {
	Version  string  `json:"version"` // "v1", "v2"
	Accepted Finding `json:"accepted"`
}

// QUICTickets are the session tickets of one full QUIC handshake.
type QUICTickets struct {
	Finding
	PerConnection   int      `json:"per_connection"`
	OnResumption    *int     `json:"on_resumption,omitempty"`
	LifetimeSeconds []uint32 `json:"lifetime_seconds,omitempty"`
	// MaxEarlyData: the tickets allow early data (their early_data
	// extension, whose max_early_data_size QUIC requires to be
	// 0xffffffff).
	MaxEarlyData Finding `json:"max_early_data"`
}

// Replay is the replay test and its evidence: what the server sent in
// answer to a replayed first flight, against what it sent to the same
// flight the first time and to a resumption without early data, each
// counted over the same time before any Finished from the client.
type Replay struct {
	Finding
	// Datagrams and Bytes of the first flight sent again: its Initial
	// packets (the ClientHello with the ticket) and its 0-RTT packets
	// (the request).
	Datagrams int `json:"datagrams,omitempty"`
	Bytes     int `json:"bytes,omitempty"`
	Initial   int `json:"initial,omitempty"`
	ZeroRTT   int `json:"zero_rtt,omitempty"`
	// DelayMS is the time between the end of the original connection
	// and the replay; WaitMS how long the server's answer was awaited
	// (and the window of the calibration). Attempts counts the replays
	// sent: another follows when the server ignored the one before
	// altogether, after twice the wait before that one.
	DelayMS  float64 `json:"delay_ms,omitempty"`
	WaitMS   float64 `json:"wait_ms,omitempty"`
	Attempts int     `json:"attempts,omitempty"`
	// Answer is what the server sent to the replay's datagrams that
	// carry Initial packets (the ClientHello, and the 0-RTT packets that
	// travel with it); Later what it sent to the Apart datagrams of
	// 0-RTT packets alone, sent after that answer. Original is what the
	// server sent to the flight the first time, before the client's
	// Finished (which the probe held back for WaitMS); Baseline what it
	// sent, the same way, on a resumption without early data.
	Answer   *PacketCounts `json:"answer,omitempty"`
	Later    *PacketCounts `json:"answer_to_zero_rtt,omitempty"`
	Apart    int           `json:"zero_rtt_datagrams_apart,omitempty"`
	Original *PacketCounts `json:"original,omitempty"`
	Baseline *PacketCounts `json:"baseline,omitempty"`
}
