package plan

import "github.com/tlsbench/tlsbench/pki"

// serverSettings are the built-in server's, shared by run and serve.
var serverSettings = []Setting{
	{
		Name: "listen", Fields: []string{"Server.Listen", "Listen"}, Group: GroupServer, Commands: Run | Serve, Kind: Scalar, Placeholder: "host:port",
		Default: "127.0.0.1:0", Defaults: map[Command]string{Serve: "127.0.0.1:8443"}, Modes: Both, Ends: BuiltinServer,
		Help: "TCP address the built-in server listens on",
	},
	{
		Name: "identity", Fields: []string{"Server.Identities", "Identities"}, Group: GroupServer, Commands: Run | Serve, Kind: Repeated, Placeholder: "CERT.pem,KEY.pem",
		Modes: Both, Ends: BuiltinServer,
		Help: "server identity CERT.pem,KEY.pem or FILE.p12 (repeat for several; the key manager picks one per ClientHello)",
	},
	{
		Name: "p12-password-file", Fields: []string{"P12PasswordFile"}, Group: GroupServer, Commands: Run | Serve, Kind: Scalar, Placeholder: "FILE",
		Modes: Both, Ends: BuiltinServer,
		Help: "FILE holding the PKCS#12 password (default: the {p12-password-env} environment variable)",
	},
	{
		Name: "constraints", Fields: []string{"Constraints"}, Group: GroupServer, Commands: Run | Serve, Kind: Scalar, Placeholder: "RULES",
		Modes: Handshake, Ends: BuiltinServer,
		Help: "identity rules checked once at load, e.g. min-rsa=2048,no-sha1,no-md5 (default: those)",
	},
	{
		Name: "session-store", Fields: []string{"SessionStore"}, Group: GroupServer, Commands: Run | Serve, Kind: Scalar, Placeholder: "STORE",
		Default: "tickets", Modes: Handshake, Ends: BuiltinServer,
		Help: "server session store: tickets (stateless, reusable) or stateful (server-side, single-use ids)",
	},
	{
		Name: "session-capacity", Fields: []string{"SessionCapacity"}, Group: GroupServer, Commands: Run | Serve, Kind: Scalar, Placeholder: "N",
		Default: "100000", Modes: Handshake, Ends: BuiltinServer,
		Help: "sessions the stateful store keeps (at most {max-session-capacity})",
	},
	{
		Name: "session-ttl", Fields: []string{"SessionTTL"}, Group: GroupServer, Commands: Run | Serve, Kind: Scalar, Placeholder: "DURATION",
		Default: "1h0m0s", Modes: Handshake, Ends: BuiltinServer,
		Help: "lifetime of a session in the stateful store (at most {max-session-ttl}, TLS 1.3's longest ticket lifetime)",
	},
	{
		Name: "ticket-keys", Fields: []string{"TicketKeysFile"}, Group: GroupServer, Commands: Run | Serve, Kind: Scalar, Placeholder: "FILE",
		Modes: Handshake, Ends: BuiltinServer,
		Help: "FILE of session ticket keys (64 hex digits a line; first encrypts, all decrypt; re-read on change: replace it atomically)",
	},
	{
		Name: "handshake-timeout", Fields: []string{"HandshakeTimeout"}, Group: GroupServer, Commands: Run | Serve, Kind: Scalar, Placeholder: "DURATION",
		Default: "10s", Modes: Both, Ends: BuiltinServer,
		Help: "server's limit for one handshake (at most {max-handshake-timeout})",
	},
	{
		Name: "early-data-policy", Fields: []string{"EarlyDataPolicy"}, Group: GroupServer, Commands: Run, Kind: Scalar, Placeholder: "POLICY",
		Modes: Handshake, Ends: BuiltinServer,
		Help: "with --transport quic: {early-data-policy-usage} (default accept: the load generator offers a ticket more than once)",
	},
}

// serveSettings are serve's own.
var serveSettings = []Setting{
	{
		Name: "key", Fields: []string{"KeyTypes"}, Commands: Serve, Group: GroupServer, Kind: Scalar, Placeholder: "TYPE",
		Default: string(pki.ECDSAP256), Values: keyTypeNames(), Ends: BuiltinServer,
		Help: "key type of the generated server certificate: {key-types}",
	},
	{
		Name: "client-ca", Fields: []string{"ClientCA"}, Commands: Serve, Group: GroupServer, Kind: Scalar, Placeholder: "FILE", Ends: BuiltinServer,
		Help: "with --mutual: CA certificates FILE that client certificates must chain to (default: the PKI's own CA, which also issues client-1.pem)",
	},
	{
		Name: "key-cache", Fields: []string{"KeyCache"}, Commands: Serve, Group: GroupServer, Kind: Scalar, Placeholder: "on|off",
		Default: On, Values: onOff, Ends: BuiltinServer,
		Help: "on: private keys decrypted once at load; off: on every full handshake (to measure what decrypting a PKCS#12 key costs)",
	},
	{
		Name: "pki-dir", Fields: []string{"PKIDir"}, Commands: Serve, Group: GroupServer, Kind: Scalar, Placeholder: "DIR", Ends: BuiltinServer,
		Help: "DIR for the test PKI (reused if it has one; default: a new temporary directory)",
	},
	{
		Name: "control-fd", Commands: Serve, Group: GroupServer, Kind: Scalar, Placeholder: "FD",
		Default: "-1", Ends: BuiltinServer, Hidden: true, NotInFile: true,
		Help: "internal: serve as tlsbench run's child on this control channel",
	},
	{
		Name: "profile", Fields: []string{"Profile.Dir"}, Commands: Serve, Group: GroupServer, Kind: Scalar, Placeholder: "FILE", Ends: BuiltinServer,
		Help: "write a CPU profile of the whole run to FILE (go tool pprof), put in place when the server stops; one that fails to start leaves an existing FILE as it was",
	},
	{
		Name: "log-level", Fields: []string{"LogLevel"}, Commands: Serve, Group: GroupServer, Kind: Scalar, Placeholder: "LEVEL",
		Default: "info", Ends: BuiltinServer,
		Help: "what goes to stderr: error, warn (handshakes refused), info (also handshakes clients gave up), debug (also idle connections closed, HTTP requests)",
	},
	{
		Name: "quic", Fields: []string{"QUIC"}, Commands: Serve, Group: GroupServer, Kind: Bool, Ends: BuiltinServer,
		Help: "also accept QUIC (TLS 1.3; tlsbench-ping and h3) on UDP at the --listen address and port",
	},
	{
		Name: "early-data-policy", Fields: []string{"EarlyDataPolicy"}, Commands: Serve, Group: GroupServer, Kind: Scalar, Placeholder: "POLICY",
		Default: "single-use", Ends: BuiltinServer,
		Help: "with --quic: {early-data-policy-usage}",
	},
	{
		Name: "idle-timeout", Fields: []string{"IdleTimeout"}, Commands: Serve, Group: GroupServer, Kind: Scalar, Placeholder: "DURATION",
		Default: "30s", Ends: BuiltinServer,
		Help: "close a connection that sends nothing (or does not read what it is sent) for this long after its handshake (at most {max-idle-timeout})",
	},
	{
		Name: "first-byte-timeout", Fields: []string{"FirstByteTimeout"}, Commands: Serve, Group: GroupServer, Kind: Scalar, Placeholder: "DURATION",
		Default: "3s", Ends: BuiltinServer,
		Help: "close a connection that sends nothing for this long after it was accepted (at most {max-first-byte-timeout}; --handshake-timeout bounds the rest of the handshake)",
	},
	{
		Name: "max-conns", Fields: []string{"MaxConns"}, Commands: Serve, Group: GroupServer, Kind: Scalar, Placeholder: "N",
		Default: "0", Ends: BuiltinServer,
		Help: "N connections served at once, TCP and QUIC together; one more is closed as soon as it is accepted (TCP) or refused (QUIC), and logged (default: the descriptor limit less a tenth and at least 64, at most 65536: here {default-max-conns}; at most {max-max-conns})",
	},
	{
		Name: "tls", Fields: []string{"Versions"}, Commands: Serve, Group: GroupServer, Kind: List, Placeholder: "LIST",
		Default: "1.2,1.3", Values: versionNames(), Ends: BuiltinServer,
		Help: "TLS versions to accept: 1.2, 1.3",
	},
	{
		Name: "revoked", Fields: []string{"RevokedFile"}, Commands: Serve, Group: GroupServer, Kind: Scalar, Placeholder: "FILE", Ends: BuiltinServer,
		Help: "FILE of revoked client certificate SHA-256 thumbprints (hex, one a line; re-read on change: replace it atomically, e.g. write a new file and rename it); their handshakes are refused and their sessions not resumed",
	},
}
