package server

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"strconv"
	"time"

	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/internal/hostname"
	"github.com/tlsbench/tlsbench/keys"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// Options configure the built-in server. They are plain data so that the
// same configuration can be built in this process (in-memory transport)
// or handed to a child process over its control channel.
type Options struct {
	// Listen is the TCP address to listen on (child and serve only).
	Listen string `json:"listen,omitempty"`
	// Versions the server accepts, e.g. ["1.2", "1.3"] (default both).
	Versions []string `json:"versions,omitempty"`
	// Identities are the server's certificate chains and keys.
	Identities []IdentityFiles `json:"identities"`
	// Mutual requires client certificates issued by ClientCA.
	Mutual   bool   `json:"mutual,omitempty"`
	ClientCA string `json:"client_ca,omitempty"`
	// DisableTickets turns session resumption off.
	DisableTickets bool `json:"disable_tickets,omitempty"`
	// SessionStore is StoreTickets (default) or StoreStateful, with
	// SessionCapacity sessions kept for SessionTTL.
	SessionStore    string        `json:"session_store,omitempty"`
	SessionCapacity int           `json:"session_capacity,omitempty"`
	SessionTTL      time.Duration `json:"session_ttl,omitempty"`
	// TicketKeysFile holds the session ticket keys, one 32-byte key in hex
	// a line; the first encrypts new tickets, all decrypt. Several servers
	// given the same file resume each other's sessions. Re-read when it
	// changes.
	TicketKeysFile string `json:"ticket_keys_file,omitempty"`
	// RevokedFile lists revoked client certificates, one SHA-256
	// thumbprint in hex a line; re-read when it changes. Their sessions
	// are not resumed and their full handshakes fail.
	RevokedFile string `json:"revoked_file,omitempty"`
	// HandshakeTimeout bounds each handshake (default 10 s).
	HandshakeTimeout time.Duration `json:"handshake_timeout,omitempty"`
	// IdleTimeout closes an echo connection silent for this long
	// (default DefaultIdleTimeout).
	IdleTimeout time.Duration `json:"idle_timeout,omitempty"`
	// FirstByteTimeout closes a TCP connection that sends nothing for
	// this long after it was accepted (default DefaultFirstByteTimeout,
	// at most MaxFirstByteTimeout).
	FirstByteTimeout time.Duration `json:"first_byte_timeout,omitempty"`
	// MaxConns caps the connections served at once, TCP and QUIC
	// together (default DefaultMaxConns, at most MaxMaxConns); a TCP one
	// over the cap is closed as soon as it is accepted, a QUIC one
	// refused (see WithMaxConns).
	MaxConns int `json:"max_conns,omitempty"`
	// P12PasswordFile holds the password of PKCS#12 identities; empty
	// means the environment variable keys.PasswordEnv. The password
	// itself is never part of Options, which travel to a child process.
	P12PasswordFile string `json:"p12_password_file,omitempty"`
	// QUIC makes the server also accept QUIC connections (TLS 1.3 only),
	// on UDP at Listen's address and port (with port 0, the port the TCP
	// listener was given); the child's Hello says where (QUICAddr). Both
	// transports share the identities, key manager, session store and
	// counters.
	QUIC bool `json:"quic,omitempty"`
	// EarlyDataPolicy is what the server does with TLS 1.3 early data
	// (0-RTT) on QUIC: EarlyDataSingleUse (default), EarlyDataReject or
	// EarlyDataAccept, which accepts replays too.
	EarlyDataPolicy string `json:"early_data_policy,omitempty"`
	// DisableKeyCache makes the key manager read and decrypt the private
	// key on every full handshake instead of once at load.
	DisableKeyCache bool `json:"disable_key_cache,omitempty"`
	// Constraints are the key manager's rules for identities
	// (keys.ParseConstraints syntax; empty: the defaults).
	Constraints string `json:"constraints,omitempty"`
	// KTLS lets throughput clients switch connections to kernel TLS
	// (WithKTLS); off for the handshake benchmark, which it would touch.
	KTLS bool `json:"ktls,omitempty"`
	// Sources are files throughput clients may ask for (WithSources).
	Sources []string `json:"sources,omitempty"`
	// MeasureHandshakeCPU makes the server measure each handshake's own
	// CPU time and count it by kind, full or resumed
	// (WithHandshakeCPU): what splits a mix's server CPU between its
	// parts.
	MeasureHandshakeCPU bool `json:"measure_handshake_cpu,omitempty"`
}

// Early-data policies (Options.EarlyDataPolicy).
const (
	// EarlyDataAccept accepts early data on every resumption whose
	// ticket allows it (the tickets it issues do), a replayed flight's
	// too: for a lab whose clients reuse their tickets.
	EarlyDataAccept = "accept"
	// EarlyDataReject issues tickets that allow early data but refuses
	// it on every resumption: the client resumes, and sends its request
	// again after the handshake.
	EarlyDataReject = "reject"
	// EarlyDataSingleUse accepts early data on a ticket's first use only
	// and refuses it when the same ticket comes again (a replay): the
	// default.
	EarlyDataSingleUse = "single-use"
)

// IdentityFiles name one identity on disk: a PEM chain (leaf first) and
// its PEM private key, or a PKCS#12 file.
type IdentityFiles struct {
	Cert string `json:"cert,omitempty"`
	Key  string `json:"key,omitempty"`
	P12  string `json:"p12,omitempty"`
}

// IdentitySource is f in the key manager's terms.
func IdentitySource(f IdentityFiles) keys.Source {
	return keys.Source{CertFile: f.Cert, KeyFile: f.Key, P12File: f.P12}
}

// Defaults and bounds of the stateful session store. A session lives
// at most 7 days, the longest ticket lifetime TLS 1.3 allows (RFC 8446,
// 4.6.1); 10 million sessions of about a kilobyte each are already
// gigabytes.
const (
	DefaultSessionCapacity = 100_000
	DefaultSessionTTL      = time.Hour
	MaxSessionCapacity     = 10_000_000
	MaxSessionTTL          = 7 * 24 * time.Hour
)

// Validate checks the options that need no file access. Its errors are
// *field.Error naming the option's field.
func (o Options) Validate() error {
	switch o.SessionStore {
	case "", StoreTickets, StoreStateful:
	default:
		return field.Errorf("SessionStore", strconv.Quote(o.SessionStore), "must be %s or %s", StoreTickets, StoreStateful)
	}
	if o.SessionCapacity < 0 || o.SessionCapacity > MaxSessionCapacity {
		return field.Errorf("SessionCapacity", o.SessionCapacity, "must be positive and at most %d", MaxSessionCapacity)
	}
	if o.SessionTTL < 0 || o.SessionTTL > MaxSessionTTL {
		return field.Errorf("SessionTTL", o.SessionTTL, "must be positive and at most %v", MaxSessionTTL)
	}
	if o.HandshakeTimeout < 0 || o.HandshakeTimeout > MaxHandshakeTimeout {
		return field.Errorf("HandshakeTimeout", o.HandshakeTimeout, "must be positive and at most %v", MaxHandshakeTimeout)
	}
	if err := hostname.CheckHostPort(o.Listen); err != nil {
		return field.Errorf("Listen", nil, "the host %v", err)
	}
	if o.MaxConns < 0 || o.MaxConns > MaxMaxConns {
		return field.Errorf("MaxConns", o.MaxConns, "must be between 1 and %d", MaxMaxConns)
	}
	if o.FirstByteTimeout < 0 || o.FirstByteTimeout > MaxFirstByteTimeout {
		return field.Errorf("FirstByteTimeout", o.FirstByteTimeout, "must be positive and at most %v", MaxFirstByteTimeout)
	}
	if o.EarlyDataPolicy != "" {
		if err := CheckEarlyDataPolicy(o.EarlyDataPolicy); err != nil {
			return err
		}
	}
	if o.Mutual && o.ClientCA == "" {
		return field.Errorf("Mutual", nil, "%s needs the CA that issues client certificates (%s FILE)", field.Ref("Mutual"), field.Ref("ClientCA"))
	}
	if o.RevokedFile != "" && !o.Mutual {
		return field.Errorf("RevokedFile", nil, "%s applies to client certificates: add %s", field.Ref("RevokedFile"), field.Ref("Mutual"))
	}
	_, maxV, err := versionRange(o.Versions)
	if err != nil {
		return err
	}
	if o.QUIC && maxV < tls.VersionTLS13 {
		return field.Errorf("QUIC", nil, "%s needs TLS 1.3: add 1.3 to %s", field.Ref("QUIC"), field.Ref("Versions"))
	}
	if _, err := keys.ParseConstraints(o.Constraints); err != nil {
		return &field.Error{Field: "Constraints", Reason: err.Error()}
	}
	for _, f := range o.Identities {
		if (f.P12 == "") == (f.Cert == "" || f.Key == "") || f.P12 != "" && (f.Cert != "" || f.Key != "") {
			return field.Errorf("Identities", nil, "give CERT.pem,KEY.pem or FILE.p12, not %+v", f)
		}
	}
	return nil
}

// TLSConfig loads the files Options name and builds the server's
// *tls.Config. Errors name the file at fault.
func (o Options) TLSConfig() (*tls.Config, error) {
	b, err := o.build(nil)
	return b.cfg, err
}

// built is what build makes: the configuration and the parts of it the
// server keeps for its counters.
type built struct {
	cfg    *tls.Config
	policy *sessionPolicy // nil with tickets disabled
	km     *keys.Manager
}

// build is TLSConfig with the parts the server keeps for its counters;
// log receives reload failures of watched files.
func (o Options) build(log func(error)) (built, error) {
	if err := o.Validate(); err != nil {
		return built{}, err
	}
	cfg, km, err := o.tlsConfig()
	if err != nil {
		return built{}, err
	}
	if o.DisableTickets {
		return built{cfg: cfg, km: km}, nil
	}
	p, err := o.sessionPolicy(cfg, log)
	if err != nil {
		return built{}, err
	}
	cfg.WrapSession = p.wrap
	cfg.UnwrapSession = p.unwrap
	return built{cfg: cfg, policy: p, km: km}, nil
}

// tlsConfig is the server's configuration without its session policy:
// versions, identities and client certificate verification.
func (o Options) tlsConfig() (*tls.Config, *keys.Manager, error) {
	if len(o.Identities) == 0 {
		return nil, nil, errors.New("server has no identity")
	}
	minV, maxV, err := versionRange(o.Versions)
	if err != nil {
		return nil, nil, err
	}
	so := tlsconf.ServerOptions{MinVersion: minV, MaxVersion: maxV, Mutual: o.Mutual, DisableTickets: o.DisableTickets}
	// Every identity goes through the key manager, generated test ones
	// included: one code path, validated once at load; its selection cost
	// is measured in BENCHMARKS.md.
	km, err := o.KeyManager()
	if err != nil {
		return nil, nil, err
	}
	so.GetCertificate = km.GetCertificate
	if o.Mutual {
		certs, err := pki.LoadCertsPEM(o.ClientCA)
		if err != nil {
			return nil, nil, err
		}
		pool := x509.NewCertPool()
		for _, c := range certs {
			pool.AddCert(c)
		}
		so.ClientCAs = pool
	}
	cfg, err := tlsconf.Server(so)
	return cfg, km, err
}

// sessionPolicy is the session store, the watched ticket keys and the
// revocation list that cfg's sessions go through.
func (o Options) sessionPolicy(cfg *tls.Config, log func(error)) (*sessionPolicy, error) {
	p := &sessionPolicy{cfg: cfg, earlyData: newEarlyData(o.EarlyDataPolicy)}
	if o.SessionStore == StoreStateful {
		capacity, ttl := o.SessionCapacity, o.SessionTTL
		if capacity == 0 {
			capacity = DefaultSessionCapacity
		}
		if ttl == 0 {
			ttl = DefaultSessionTTL
		}
		p.store = newStatefulStore(capacity, ttl)
	}
	if o.TicketKeysFile != "" {
		w, err := newWatchedFile(o.TicketKeysFile, func(data []byte) error { return setTicketKeys(cfg, data) }, log)
		if err != nil {
			return nil, &field.Error{Field: "TicketKeysFile", Reason: err.Error()}
		}
		p.ticketKeys = w
	}
	if o.RevokedFile != "" {
		r, err := newRevocationList(o.RevokedFile, log)
		if err != nil {
			return nil, &field.Error{Field: "RevokedFile", Reason: err.Error()}
		}
		p.revoked = r
		cfg.VerifyConnection = p.verifyNotRevoked
	}
	return p, nil
}

// setTicketKeys gives cfg the ticket keys of a ticket keys file's
// contents: 32-byte keys in hex, one a line, the first for new tickets.
func setTicketKeys(cfg *tls.Config, data []byte) error {
	keys, err := hexLines(data, 32)
	if err != nil {
		return err
	}
	if len(keys) == 0 {
		return errors.New("no ticket key in the file")
	}
	tk := make([][32]byte, len(keys))
	for i, k := range keys {
		tk[i] = [32]byte(k)
	}
	cfg.SetSessionTicketKeys(tk)
	return nil
}

// KeyManager loads and validates the identities, as the server does at
// start.
func (o Options) KeyManager() (*keys.Manager, error) {
	cons, err := keys.ParseConstraints(o.Constraints)
	if err != nil {
		return nil, &field.Error{Field: "Constraints", Reason: err.Error()}
	}
	srcs := make([]keys.Source, len(o.Identities))
	for i, f := range o.Identities {
		srcs[i] = IdentitySource(f)
	}
	opts := []keys.Option{keys.WithConstraints(cons), keys.WithKeyCache(!o.DisableKeyCache)}
	if o.P12PasswordFile != "" {
		opts = append(opts, keys.WithP12Password(keys.PasswordFile(o.P12PasswordFile)))
	}
	return keys.New(srcs, opts...)
}

// versionRange turns a list of version names into the min and max version.
func versionRange(names []string) (uint16, uint16, error) {
	if len(names) == 0 {
		return tls.VersionTLS12, tls.VersionTLS13, nil
	}
	var minV, maxV uint16
	for _, n := range names {
		v, err := tlsconf.ParseVersion(n)
		if err != nil {
			return 0, 0, err
		}
		if minV == 0 || v < minV {
			minV = v
		}
		if v > maxV {
			maxV = v
		}
	}
	return minV, maxV, nil
}

// NewFromOptions builds a Server from o.
func NewFromOptions(o Options, opts ...Option) (*Server, error) {
	var s *Server
	b, err := o.build(func(err error) {
		if s != nil {
			s.log.Warn("reloading a watched file failed; keeping its previous contents", "err", err)
		}
	})
	if err != nil {
		return nil, err
	}
	if o.HandshakeTimeout > 0 {
		opts = append([]Option{WithHandshakeTimeout(o.HandshakeTimeout)}, opts...)
	}
	if o.IdleTimeout > 0 {
		opts = append([]Option{WithIdleTimeout(o.IdleTimeout)}, opts...)
	}
	if o.FirstByteTimeout > 0 {
		opts = append([]Option{WithFirstByteTimeout(o.FirstByteTimeout)}, opts...)
	}
	if o.MaxConns > 0 {
		opts = append([]Option{WithMaxConns(o.MaxConns)}, opts...)
	}
	if o.KTLS {
		opts = append(opts, WithKTLS())
	}
	if len(o.Sources) > 0 {
		opts = append(opts, WithSources(o.Sources...))
	}
	if o.MeasureHandshakeCPU {
		opts = append(opts, WithHandshakeCPU())
	}
	s = New(b.cfg, opts...)
	s.policy = b.policy
	s.km = b.km
	b.km.SetLogger(s.log)
	return s, nil
}

// CheckEarlyDataPolicy refuses an early-data policy the server does not
// have (the check of Options.EarlyDataPolicy, for the commands that take
// one before they build Options).
func CheckEarlyDataPolicy(policy string) error {
	switch policy {
	case EarlyDataAccept, EarlyDataReject, EarlyDataSingleUse:
		return nil
	}
	return field.Errorf("EarlyDataPolicy", strconv.Quote(policy), "must be %s, %s or %s", EarlyDataAccept, EarlyDataReject, EarlyDataSingleUse)
}
