package server

// QUICMaxAwaitingHello is quicMaxAwaitingHello, for the flood test.
const QUICMaxAwaitingHello = quicMaxAwaitingHello

// WithQUICAwaitingLimits lowers how many QUIC connections may wait for
// their ClientHello before new ones get a Retry (retry) or are refused
// (refuse), so that a test gets there with a few packets.
func WithQUICAwaitingLimits(retry, refuse int64) Option {
	return func(s *Server) { s.quicRetryAt, s.quicRefuseAt = retry, refuse }
}

// WithQUICHandshakeLimits lowers how many QUIC handshakes may be in
// flight before new clients get a Retry (retry) or are refused (refuse),
// so that a test gets there with a few clients.
func WithQUICHandshakeLimits(retry, refuse int64) Option {
	return func(s *Server) { s.quicRetryHandshaking, s.quicRefuseHandshaking = retry, refuse }
}
