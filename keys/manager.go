package keys

import (
	"bytes"
	"context"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tlsbench/tlsbench/pki"
)

// DefaultPreference is the server's preference among key algorithms when
// a client can verify several: ECDSA and Ed25519 sign in tens of
// microseconds, RSA-2048 in about a millisecond, and ECDSA is more widely
// supported by clients than Ed25519.
var DefaultPreference = []x509.PublicKeyAlgorithm{x509.ECDSA, x509.Ed25519, x509.RSA}

// An Option configures New.
type Option func(*config)

type config struct {
	constraints Constraints
	keyCache    bool
	password    Password
	preference  []x509.PublicKeyAlgorithm
	log         *slog.Logger
	now         func() time.Time
}

// WithConstraints sets the policy identities are validated against
// (default DefaultConstraints).
func WithConstraints(c Constraints) Option {
	return func(cfg *config) { cfg.constraints = c }
}

// WithKeyCache turns the key cache on (the default: keys are decrypted
// once, at load) or off (every handshake that signs reads and decrypts the
// key file again; see the package documentation).
func WithKeyCache(on bool) Option {
	return func(cfg *config) { cfg.keyCache = on }
}

// WithP12Password says where PKCS#12 passwords come from (one password
// for all files). Default: the environment variable PasswordEnv.
func WithP12Password(p Password) Option {
	return func(cfg *config) { cfg.password = p }
}

// WithPreference sets the server's preference among key algorithms,
// most preferred first (default DefaultPreference). Algorithms not listed
// come last. Within an algorithm, identities keep the order given to New.
func WithPreference(algs ...x509.PublicKeyAlgorithm) Option {
	return func(cfg *config) { cfg.preference = slices.Clone(algs) }
}

// WithLogger sets where rejected handshakes are logged (default:
// discarded). Each distinct explanation is logged at Warn the first time
// and at Debug after that, so that a misconfigured load generator cannot
// flood the log.
func WithLogger(l *slog.Logger) Option {
	return func(cfg *config) { cfg.log = l }
}

// WithClock sets the time validity dates are checked against (default
// time.Now), for tests.
func WithClock(now func() time.Time) Option {
	return func(cfg *config) { cfg.now = now }
}

// Manager holds the server's identities and chooses one per ClientHello.
// It is safe for concurrent use.
type Manager struct {
	ids      []*identity // in preference order
	keyCache bool
	cons     Constraints
	log      atomic.Pointer[slog.Logger]

	keyLoads         atomic.Int64
	decryptions      atomic.Int64
	rejected         atomic.Int64
	helloUnavailable atomic.Int64

	logMu  sync.Mutex
	logged map[string]bool
}

// New loads and validates the identities. Every identity is checked
// before New returns; the error joins the problems of all of them, each
// naming its file (rule violations are *Violation).
func New(sources []Source, opts ...Option) (*Manager, error) {
	cfg := config{
		constraints: DefaultConstraints(),
		keyCache:    true,
		password:    PasswordFromEnv(PasswordEnv),
		preference:  DefaultPreference,
		log:         slog.New(slog.DiscardHandler),
		now:         time.Now,
	}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if len(sources) == 0 {
		return nil, errors.New("no server identity; give one or more (CERT.pem,KEY.pem or FILE.p12)")
	}
	m := &Manager{keyCache: cfg.keyCache, cons: cfg.constraints, logged: map[string]bool{}}
	m.SetLogger(cfg.log)

	// The password is read once, when the first PKCS#12 file needs it.
	var pw string
	var pwErr error
	pwRead := false
	password := func() (string, error) {
		if !pwRead {
			pw, pwErr = cfg.password.Read()
			pwRead = true
		}
		return pw, pwErr
	}

	now := cfg.now()
	var errs []error
	seen := map[string]bool{}
	for _, src := range sources {
		if seen[src.String()] {
			errs = append(errs, fmt.Errorf("identity %s is given twice", src))
			continue
		}
		seen[src.String()] = true
		id, key, err := loadIdentity(src, password, cfg.constraints, now, &m.decryptions)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if cfg.keyCache {
			id.served = &tls.Certificate{Certificate: id.chain, PrivateKey: key, Leaf: id.leaf}
			id.password = ""
		}
		m.ids = append(m.ids, id)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	rank := func(a x509.PublicKeyAlgorithm) int {
		if i := slices.Index(cfg.preference, a); i >= 0 {
			return i
		}
		return len(cfg.preference)
	}
	slices.SortStableFunc(m.ids, func(a, b *identity) int { return rank(a.algo) - rank(b.algo) })
	return m, nil
}

// SetLogger replaces the logger rejected handshakes are logged to (see
// WithLogger). It is safe to call while handshakes run, so that a server
// built after the manager can hand it its own logger.
func (m *Manager) SetLogger(l *slog.Logger) {
	if l == nil {
		l = slog.New(slog.DiscardHandler)
	}
	m.log.Store(l)
}

// KeyCache reports whether decrypted keys are kept.
func (m *Manager) KeyCache() bool { return m.keyCache }

// Constraints returns the policy the identities were validated against.
func (m *Manager) Constraints() Constraints { return m.cons }

// IdentityInfo describes a loaded identity.
type IdentityInfo struct {
	Source   string // as given: CERT.pem,KEY.pem or FILE.p12
	Key      string // "ECDSA P-256", "RSA 2048-bit", "Ed25519"
	KeyType  string // pki.KeyType name ("ecdsa-p256"), "" for other keys
	Names    []string
	NotAfter time.Time
	Chain    int // certificates sent: leaf and intermediates
}

// Identities returns the identities in the server's preference order.
func (m *Manager) Identities() []IdentityInfo {
	out := make([]IdentityInfo, len(m.ids))
	for i, id := range m.ids {
		kt, _ := pki.KeyTypeOf(id.leaf.PublicKey)
		out[i] = IdentityInfo{Source: id.name, Key: id.desc, KeyType: string(kt), Names: id.sans(), NotAfter: id.leaf.NotAfter, Chain: len(id.chain)}
	}
	return out
}

// Stats counts what the manager did since New.
type Stats struct {
	// Selected counts the handshakes each identity was chosen for, by
	// Source string. crypto/tls asks for a certificate in every TLS 1.2
	// handshake, resumed ones included, and only in full TLS 1.3 ones.
	Selected map[string]int64
	// Rejected counts handshakes for which no identity was acceptable.
	Rejected int64
	// KeyLoads counts private keys read from disk for a handshake (key
	// cache off only).
	KeyLoads int64
	// Decryptions counts PKCS#12 files decoded (PBKDF2 and decryption),
	// at load and, with the key cache off, per handshake.
	Decryptions int64
	// HelloUnavailable counts handshakes whose client sent
	// signature_algorithms_cert but whose connection had no recorder
	// (RecordClientHello), so that signature_algorithms was used instead.
	HelloUnavailable int64
}

// Stats returns the counters.
func (m *Manager) Stats() Stats {
	s := Stats{
		Selected:         make(map[string]int64, len(m.ids)),
		Rejected:         m.rejected.Load(),
		KeyLoads:         m.keyLoads.Load(),
		Decryptions:      m.decryptions.Load(),
		HelloUnavailable: m.helloUnavailable.Load(),
	}
	for _, id := range m.ids {
		s.Selected[id.name] = id.selected.Load()
	}
	return s
}

// GetCertificate chooses the identity for a ClientHello; set it as
// tls.Config.GetCertificate and leave tls.Config.Certificates empty
// (crypto/tls calls GetCertificate without SNI only when Certificates is
// empty). It never returns an error: when no identity is acceptable it
// returns a certificate without a usable key, which makes crypto/tls fail
// the handshake with a handshake_failure alert (an error would be sent as
// internal_error), and records the reasons (Rejection, the log, Stats).
//
// When the handshake's connection (hello.Conn) is a KeyTimer, it is told
// how long the manager took for its handshake.
func (m *Manager) GetCertificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	kt, timed := hello.Conn.(KeyTimer)
	if !timed {
		return m.certificate(hello, nil), nil
	}
	start := time.Now()
	c := m.certificate(hello, kt)
	kt.AddKeyTime(time.Since(start))
	return c, nil
}

// KeyTimer is a server connection that wants to know how long the key
// manager worked for its handshake: choosing the identity and, with the
// key cache off, reading and decrypting its key (which happens later, when
// crypto/tls first signs). AddKeyTime is called from the handshake's own
// goroutine, once per such stretch.
type KeyTimer interface {
	AddKeyTime(time.Duration)
}

// certificate is GetCertificate's choice; kt, when not nil, is told the
// time a lazily loaded key takes.
func (m *Manager) certificate(hello *tls.ClientHelloInfo, kt KeyTimer) *tls.Certificate {
	var buf [32]tls.SignatureScheme
	sel := m.newSelection(hello, buf[:0])
	id := m.choose(&sel)
	if id == nil {
		m.reject(&sel)
		return refusal
	}
	id.selected.Add(1)
	if id.served != nil {
		return id.served
	}
	return m.lazyCertificate(id, kt)
}

// refusal is the certificate GetCertificate returns to refuse a
// handshake. Its key is neither a crypto.Signer nor a crypto.Decrypter,
// so TLS 1.2 finds no cipher suite and TLS 1.3 no signature scheme for
// it, and both send handshake_failure instead of a ServerHello.
// TestRejectionAlert pins this behaviour of crypto/tls.
var refusal = &tls.Certificate{PrivateKey: noKey{}}

type noKey struct{}

// selection is what choosing an identity needs from one ClientHello.
type selection struct {
	hello *tls.ClientHelloInfo
	// probe is the ClientHelloInfo without SNI, for SupportsCertificate:
	// the manager matches names itself, and also falls back to identities
	// that do not match when none does.
	probe    tls.ClientHelloInfo
	sni      string
	sniIP    net.IP
	sniMatch bool // some identity is valid for sni
	// certList is what the client can verify in certificate signatures:
	// signature_algorithms_cert when hard is true, else
	// signature_algorithms (RFC 8446 section 4.2.3), which only ranks.
	certList []tls.SignatureScheme
	hard     bool
}

func (m *Manager) newSelection(hello *tls.ClientHelloInfo, buf []tls.SignatureScheme) selection {
	s := selection{hello: hello, probe: *hello}
	s.probe.ServerName = ""
	if hello.ServerName != "" {
		s.sni = strings.ToLower(strings.TrimSuffix(hello.ServerName, "."))
		if s.sni != "" && (s.sni[0] >= '0' && s.sni[0] <= '9' || strings.IndexByte(s.sni, ':') >= 0) {
			s.sniIP = net.ParseIP(s.sni) // only then: a failed parse allocates its error
		}
		for _, id := range m.ids {
			if id.validFor(s.sni, s.sniIP) {
				s.sniMatch = true
				break
			}
		}
	}
	s.certList = hello.SignatureSchemes
	// hello.Extensions tells whether the client sent
	// signature_algorithms_cert; only then are the raw bytes needed.
	if slices.Contains(hello.Extensions, extSignatureAlgsCert) {
		var msg []byte
		if h := helloConnOf(hello.Conn); h != nil {
			msg, _ = h.clientHello()
		}
		if list, ok := certSchemesOf(msg, buf); ok {
			s.certList, s.hard = list, true
		} else {
			m.helloUnavailable.Add(1)
		}
	}
	return s
}

// choose returns the first identity in preference order that the client
// can use and whose chain it can verify, else the first it can use whose
// chain fits only its signature_algorithms preference, else nil.
func (m *Manager) choose(s *selection) *identity {
	var fallback *identity
	for _, id := range m.ids {
		ok, preferred, _ := m.check(id, s, false)
		if !ok {
			continue
		}
		if preferred {
			return id
		}
		if fallback == nil {
			fallback = id
		}
	}
	return fallback
}

// check decides whether id is acceptable for the ClientHello, and
// whether the client can verify its chain. With explain it also says why
// not; the per-handshake path does not build the strings.
func (m *Manager) check(id *identity, s *selection, explain bool) (ok, preferred bool, why string) {
	if s.sniMatch && !id.validFor(s.sni, s.sniIP) {
		if explain {
			why = fmt.Sprintf("not valid for server name %q (valid for %s)", s.sni, strings.Join(id.names(), ", "))
		}
		return false, false, why
	}
	if err := s.probe.SupportsCertificate(&id.probe); err != nil {
		if explain {
			why = fmt.Sprintf("the client cannot use its %s key: %v (client's signature_algorithms: %s)", id.desc, err, schemeList(s.hello.SignatureSchemes))
		}
		return false, false, why
	}
	if len(s.certList) == 0 {
		return true, true, ""
	}
	for i, cs := range id.certSchemes {
		if cs != 0 && slices.Contains(s.certList, cs) {
			continue
		}
		if !s.hard {
			return true, false, ""
		}
		if explain {
			why = fmt.Sprintf("the client cannot verify the signature on certificate %d of its chain (%v): its signature_algorithms_cert is %s",
				i+1, id.signatureAlgorithm(i), schemeList(s.certList))
		}
		return false, false, why
	}
	return true, true, ""
}

// signatureAlgorithm names the algorithm of certificate i of the chain
// sent.
func (id *identity) signatureAlgorithm(i int) string {
	c, err := x509.ParseCertificate(id.chain[i])
	if err != nil {
		return "unparsable"
	}
	if s, ok := certScheme(c.SignatureAlgorithm); ok {
		return SchemeName(s)
	}
	return c.SignatureAlgorithm.String()
}

// validFor matches a server name (lower case, no trailing dot) against
// the leaf's SANs: DNS names, with a wildcard standing for exactly one
// left-most label as RFC 6125 section 6.4.3 allows, and IP addresses,
// which some clients send as SNI although RFC 6066 forbids it.
func (id *identity) validFor(name string, ip net.IP) bool {
	if ip != nil {
		for _, a := range id.leaf.IPAddresses {
			if a.Equal(ip) {
				return true
			}
		}
		return false
	}
	for _, d := range id.leaf.DNSNames {
		if strings.EqualFold(d, name) {
			return true
		}
		if strings.HasPrefix(d, "*.") {
			if i := strings.IndexByte(name, '.'); i > 0 && strings.EqualFold(name[i:], d[1:]) {
				return true
			}
		}
	}
	return false
}

// sans returns the leaf's DNS and IP subject alternative names.
func (id *identity) sans() []string {
	names := slices.Clone(id.leaf.DNSNames)
	for _, ip := range id.leaf.IPAddresses {
		names = append(names, ip.String())
	}
	return names
}

// names is sans for a message.
func (id *identity) names() []string {
	if n := id.sans(); len(n) > 0 {
		return n
	}
	return []string{"no names"}
}

// NoIdentityError is why a handshake was refused: for every identity,
// the rule that excluded it.
type NoIdentityError struct {
	ServerName string
	// Excluded has one entry per identity: "FILE: reason".
	Excluded []string
}

func (e *NoIdentityError) Error() string {
	sni := "no SNI"
	if e.ServerName != "" {
		sni = fmt.Sprintf("SNI %q", e.ServerName)
	}
	return fmt.Sprintf("no server identity is acceptable to the client (%s): %s", sni, strings.Join(e.Excluded, "; "))
}

func (m *Manager) reject(s *selection) {
	m.rejected.Add(1)
	e := &NoIdentityError{ServerName: s.hello.ServerName}
	for _, id := range m.ids {
		if _, _, why := m.check(id, s, true); why != "" {
			e.Excluded = append(e.Excluded, id.name+": "+why)
		}
	}
	if h := helloConnOf(s.hello.Conn); h != nil {
		h.setRejection(e)
	}
	msg := e.Error()
	m.logMu.Lock()
	first := !m.logged[msg]
	if first && len(m.logged) < 1000 {
		m.logged[msg] = true
	}
	m.logMu.Unlock()
	level := slog.LevelDebug
	if first {
		level = slog.LevelWarn
	}
	remote := "unknown"
	if s.hello.Conn != nil && s.hello.Conn.RemoteAddr() != nil {
		remote = s.hello.Conn.RemoteAddr().String()
	}
	ctx := s.hello.Context()
	if ctx == nil {
		ctx = context.Background() // a ClientHelloInfo built by hand
	}
	m.log.Load().Log(ctx, level, "handshake refused with handshake_failure: no acceptable server identity",
		"remote", remote, "sni", s.hello.ServerName,
		"signature_algorithms", schemeList(s.hello.SignatureSchemes),
		"signature_algorithms_cert", certListAttr(s),
		"excluded", strings.Join(e.Excluded, "; "))
}

func certListAttr(s *selection) string {
	if !s.hard {
		return "not sent"
	}
	return schemeList(s.certList)
}

// lazyCertificate is the certificate served with the key cache off: its
// key is read and decrypted when crypto/tls first signs (or, for TLS 1.2
// RSA key exchange, decrypts) with it, once per handshake.
func (m *Manager) lazyCertificate(id *identity, kt KeyTimer) *tls.Certificate {
	k := &lazyKey{m: m, id: id, timer: kt}
	var priv crypto.Signer = k
	if id.algo == x509.RSA {
		priv = lazyRSAKey{k}
	}
	return &tls.Certificate{Certificate: id.chain, PrivateKey: priv, Leaf: id.leaf}
}

type lazyKey struct {
	m     *Manager
	id    *identity
	timer KeyTimer // nil: not timed
	once  sync.Once
	key   crypto.Signer
	err   error
}

func (k *lazyKey) Public() crypto.PublicKey { return k.id.leaf.PublicKey }

func (k *lazyKey) Sign(rand io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	key, err := k.get()
	if err != nil {
		return nil, err
	}
	return key.Sign(rand, digest, opts)
}

func (k *lazyKey) get() (crypto.Signer, error) {
	k.once.Do(func() {
		start := time.Now()
		k.key, k.err = k.m.loadKey(k.id)
		if k.timer != nil {
			k.timer.AddKeyTime(time.Since(start))
		}
	})
	return k.key, k.err
}

// lazyRSAKey adds Decrypt for TLS 1.2's RSA key exchange; only RSA keys
// may have it (see publicOnly).
type lazyRSAKey struct{ *lazyKey }

func (k lazyRSAKey) Decrypt(rand io.Reader, msg []byte, opts crypto.DecrypterOpts) ([]byte, error) {
	key, err := k.get()
	if err != nil {
		return nil, err
	}
	d, ok := key.(crypto.Decrypter)
	if !ok {
		return nil, fmt.Errorf("%s: RSA key of type %T cannot decrypt", k.id.name, key)
	}
	return d.Decrypt(rand, msg, opts)
}

// loadKey reads the identity's key from disk for one handshake. It does
// not re-validate (that was done once, at load), but refuses a file that
// no longer holds the validated certificate's key, so that a replaced
// file is never served unvalidated.
func (m *Manager) loadKey(id *identity) (crypto.Signer, error) {
	m.keyLoads.Add(1)
	var key crypto.Signer
	if id.src.P12File != "" {
		data, err := os.ReadFile(id.src.P12File)
		if err != nil {
			return nil, fmt.Errorf("key cache off: %w", err)
		}
		m.decryptions.Add(1)
		certs, k, err := decodeP12(data, id.password)
		if err != nil {
			return nil, fmt.Errorf("key cache off: %s: %w", id.src.P12File, err)
		}
		if !bytes.Equal(certs[0].Raw, id.leaf.Raw) {
			return nil, fmt.Errorf("key cache off: %s holds another certificate than at load; restart the server to validate it", id.src.P12File)
		}
		key = k
	} else {
		k, err := loadKeyPEM(id.src.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("key cache off: %w", err)
		}
		key = k
	}
	if pub, ok := id.leaf.PublicKey.(interface{ Equal(crypto.PublicKey) bool }); !ok || !pub.Equal(key.Public()) {
		return nil, fmt.Errorf("key cache off: the key in %s changed since load; restart the server to validate it", id.name)
	}
	return key, nil
}
