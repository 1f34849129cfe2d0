package pki

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// InitOptions describes the test PKI that Init writes.
type InitOptions struct {
	// Dir is created with mode 0700 if missing.
	Dir string
	// ServerKeys lists one server identity per key type; default [ecdsa-p256].
	ServerKeys []KeyType
	// Hosts become the server certificates' SANs; default DefaultHosts.
	Hosts []string
	// Clients is the number of client identities, named "tlsbench client 1"
	// and so on; default 0, at most MaxClients.
	Clients int
	// ClientKey is the client identities' key type; default ecdsa-p256.
	ClientKey KeyType
	// Intermediate makes the root sign an intermediate that issues every
	// leaf, so that chains have the length real deployments have.
	Intermediate bool
	// P12Password, when non-empty, makes Init also write a PKCS#12 file per
	// identity, encrypted with it.
	P12Password string
	// P12Iterations is the PKCS#12 key derivation count; 0 means
	// DefaultP12Iterations (see there for why it is not higher), at most
	// MaxP12Iterations.
	P12Iterations int
	// Force replaces an existing PKI in Dir. Without it Init refuses, so
	// that a second `pki init` cannot silently orphan the certificates that
	// clients were already given.
	Force bool
}

// MaxClients bounds InitOptions.Clients: each client identity is a key
// generation and two to three files.
const MaxClients = 10_000

// File names in a PKI directory. Layout holds the full paths.
const (
	RootCertFile         = "ca.pem"
	IntermediateCertFile = "intermediate.pem"
)

// Layout is the set of files Init wrote, as full paths.
//
//	ca.pem                         root certificate (the trust anchor)
//	intermediate.pem               intermediate certificate, with Intermediate
//	server-<keytype>.pem           leaf then intermediate (what the server sends)
//	server-<keytype>-key.pem       PKCS#8 private key, mode 0600
//	server-<keytype>.p12           PKCS#12 of the above, mode 0600, with P12Password
//	client-<n>.pem, -key.pem, .p12 the same for client n, counting from 1
//
// The CA private keys are not written: a test root that somebody adds to a
// trust store cannot then be used to mint certificates, and a new PKI costs
// milliseconds.
type Layout struct {
	Dir              string
	RootCert         string
	IntermediateCert string // empty without an intermediate
	ServerCerts      map[KeyType]string
	ServerKeys       map[KeyType]string
	ServerP12        map[KeyType]string // empty without P12Password
	ClientCerts      []string
	ClientKeys       []string
	ClientP12        []string // empty without P12Password
}

// pkiPatterns match the files Init writes; any of them in Dir means a PKI
// is already there.
var pkiPatterns = []string{RootCertFile, IntermediateCertFile, "server-*.pem", "server-*.p12", "client-*.pem", "client-*.p12"}

// Init generates a test PKI and writes it to opts.Dir (see Layout for the
// files). It validates all options before writing anything. With Force, an
// earlier PKI's files (those matching Layout's names, and only those) are
// replaced: none of them is left behind, no stale client-7.pem of another
// root.
func Init(opts InitOptions) (*Layout, error) {
	return InitContext(context.Background(), opts)
}

// InitContext is Init that stops when ctx ends, at once even in the middle
// of a key generation or a PKCS#12 key derivation (whose computation is
// left to finish on its own, its result unused). When it fails or is
// stopped, the files it wrote are removed: no half PKI is left in Dir
// (every file is written whole, by rename, or not at all). With Force
// over an earlier PKI, the new one is written into a directory of its own
// inside Dir first, and swapped for the old one only once it is whole: a
// stop before leaves the old PKI as it was.
func InitContext(ctx context.Context, opts InitOptions) (l *Layout, err error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("pki init: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	old, err := prepareDir(o.Dir, o.Force)
	if err != nil {
		return nil, fmt.Errorf("pki init: %w", err)
	}
	w := &initWriter{ctx: ctx, o: o}
	if len(old) > 0 {
		if w.o.Dir, err = os.MkdirTemp(o.Dir, stagingPrefix); err != nil {
			return nil, fmt.Errorf("pki init: %w", err)
		}
		defer os.RemoveAll(w.o.Dir)
	}
	defer func() {
		if err != nil {
			w.removeWritten()
			if ctx.Err() == nil {
				err = fmt.Errorf("pki init: %w", err)
			}
		}
	}()
	if l, err = w.writeAll(); err != nil || len(old) == 0 {
		return l, err
	}
	// No stop from here: the swap takes a few renames.
	if err := swapIn(o.Dir, w.o.Dir, old, w.written); err != nil {
		return nil, err
	}
	w.written = nil
	return l.moved(w.o.Dir, o.Dir), nil
}

// writeAll writes the CAs' certificates and every identity.
func (w *initWriter) writeAll() (*Layout, error) {
	ctx, o := w.ctx, w.o
	l, issuer, err := w.writeCAs()
	if err != nil {
		return nil, err
	}
	for _, kt := range o.ServerKeys {
		id, err := await(ctx, func() (*Identity, error) { return issuer.IssueServer(o.Hosts, WithKeyType(kt)) })
		if err != nil {
			return nil, err
		}
		cert, key, p12, err := w.writeIdentity(filepath.Join(o.Dir, "server-"+string(kt)), id)
		if err != nil {
			return nil, err
		}
		l.ServerCerts[kt], l.ServerKeys[kt] = cert, key
		if p12 != "" {
			l.ServerP12[kt] = p12
		}
	}
	for n := 1; n <= o.Clients; n++ {
		id, err := await(ctx, func() (*Identity, error) {
			return issuer.IssueClient(fmt.Sprintf("tlsbench client %d", n), WithKeyType(o.ClientKey))
		})
		if err != nil {
			return nil, err
		}
		cert, key, p12, err := w.writeIdentity(filepath.Join(o.Dir, fmt.Sprintf("client-%d", n)), id)
		if err != nil {
			return nil, err
		}
		l.ClientCerts = append(l.ClientCerts, cert)
		l.ClientKeys = append(l.ClientKeys, key)
		if p12 != "" {
			l.ClientP12 = append(l.ClientP12, p12)
		}
	}
	return l, nil
}

// stagingPrefix and oldPrefix name the directories inside Dir that hold
// a new PKI until it is whole, and the old one while the two are swapped
// (Force). Neither matches pkiPatterns.
const (
	stagingPrefix = ".pki-init-new-"
	oldPrefix     = ".pki-init-old-"
)

// swapIn replaces the files old of dir with the new ones, written in
// staging: the old are moved aside, the new moved in, the old removed.
// When a move fails, what was moved is moved back, and the old PKI is as
// it was.
func swapIn(dir, staging string, old, written []string) error {
	aside, err := os.MkdirTemp(dir, oldPrefix)
	if err != nil {
		return fmt.Errorf("replace the old PKI: %w", err)
	}
	var done [][2]string // the renames made, from and to
	move := func(from, to string) error {
		err := os.Rename(from, to)
		if err == nil {
			done = append(done, [2]string{from, to})
		}
		return err
	}
	for _, p := range old {
		if err = move(p, filepath.Join(aside, filepath.Base(p))); err != nil {
			break
		}
	}
	for _, p := range written {
		if err != nil {
			break
		}
		err = move(p, filepath.Join(dir, filepath.Base(p)))
	}
	if err == nil {
		os.RemoveAll(aside) // the new PKI is in place whatever becomes of the old
		return nil
	}
	// Every move is undone that can be, not only those before the first
	// that fails: the fewer files left astray, the less to put right.
	stray := 0
	for i := len(done) - 1; i >= 0; i-- {
		if os.Rename(done[i][1], done[i][0]) != nil {
			stray++
		}
	}
	if stray > 0 {
		// Whatever of the old PKI could not be put back is kept there.
		return fmt.Errorf("replace the old PKI: %w; %d of its files could not be put back and are in %s", err, stray, aside)
	}
	os.Remove(aside)
	return fmt.Errorf("replace the old PKI: %w", err)
}

// moved is l with its files in dir instead of from.
func (l *Layout) moved(from, dir string) *Layout {
	at := func(p string) string {
		if p == "" {
			return ""
		}
		rel, _ := filepath.Rel(from, p)
		return filepath.Join(dir, rel)
	}
	out := &Layout{Dir: dir, RootCert: at(l.RootCert), IntermediateCert: at(l.IntermediateCert),
		ServerCerts: map[KeyType]string{}, ServerKeys: map[KeyType]string{}, ServerP12: map[KeyType]string{}}
	for kt, p := range l.ServerCerts {
		out.ServerCerts[kt] = at(p)
	}
	for kt, p := range l.ServerKeys {
		out.ServerKeys[kt] = at(p)
	}
	for kt, p := range l.ServerP12 {
		out.ServerP12[kt] = at(p)
	}
	for _, p := range l.ClientCerts {
		out.ClientCerts = append(out.ClientCerts, at(p))
	}
	for _, p := range l.ClientKeys {
		out.ClientKeys = append(out.ClientKeys, at(p))
	}
	for _, p := range l.ClientP12 {
		out.ClientP12 = append(out.ClientP12, at(p))
	}
	return out
}

// initWriter writes one PKI's files and remembers them, so that a PKI
// that cannot be finished is removed.
type initWriter struct {
	ctx     context.Context
	o       InitOptions
	written []string
}

// write writes one file of the PKI, path, with put, unless ctx has
// ended.
func (w *initWriter) write(path string, put func() error) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	if err := put(); err != nil {
		return err
	}
	w.written = append(w.written, path)
	return nil
}

func (w *initWriter) removeWritten() {
	for _, p := range w.written {
		os.Remove(p)
	}
}

// writeCAs makes the root (and the intermediate) and writes their
// certificates; it returns the layout so far and the leaves' issuer.
func (w *initWriter) writeCAs() (*Layout, *CA, error) {
	root, err := await(w.ctx, func() (*CA, error) { return NewCA() })
	if err != nil {
		return nil, nil, err
	}
	issuer := root
	if w.o.Intermediate {
		if issuer, err = await(w.ctx, func() (*CA, error) { return root.NewIntermediate() }); err != nil {
			return nil, nil, err
		}
	}
	l := &Layout{
		Dir:         w.o.Dir,
		RootCert:    filepath.Join(w.o.Dir, RootCertFile),
		ServerCerts: map[KeyType]string{},
		ServerKeys:  map[KeyType]string{},
		ServerP12:   map[KeyType]string{},
	}
	if err := w.write(l.RootCert, func() error { return WriteCertsPEM(l.RootCert, root.Cert) }); err != nil {
		return nil, nil, err
	}
	if w.o.Intermediate {
		l.IntermediateCert = filepath.Join(w.o.Dir, IntermediateCertFile)
		if err := w.write(l.IntermediateCert, func() error { return WriteCertsPEM(l.IntermediateCert, issuer.Cert) }); err != nil {
			return nil, nil, err
		}
	}
	return l, issuer, nil
}

func (w *initWriter) writeIdentity(base string, id *Identity) (cert, key, p12 string, err error) {
	cert, key = base+".pem", base+"-key.pem"
	if err := w.write(cert, func() error { return WriteCertsPEM(cert, id.Chain...) }); err != nil {
		return "", "", "", err
	}
	if err := w.write(key, func() error { return WriteKeyPEM(key, id.Key) }); err != nil {
		return "", "", "", err
	}
	if w.o.P12Password != "" {
		p12 = base + ".p12"
		// The key derivation may take seconds (up to MaxP12Iterations):
		// it must not hold a stop back.
		data, err := await(w.ctx, func() ([]byte, error) { return EncodePKCS12(id, w.o.P12Password, w.o.P12Iterations) })
		if err != nil {
			if w.ctx.Err() == nil {
				err = fmt.Errorf("write %s: %w", p12, err)
			}
			return "", "", "", err
		}
		if err := w.write(p12, func() error { return writeFile(p12, data, KeyFileMode) }); err != nil {
			return "", "", "", err
		}
	}
	return cert, key, p12, nil
}

// await runs f on a goroutine of its own and returns its result, or
// ctx's error as soon as ctx ends; f then finishes unobserved, so it must
// have no effect but its result.
func await[T any](ctx context.Context, f func() (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

func (o InitOptions) withDefaults() (InitOptions, error) {
	if strings.TrimSpace(o.Dir) == "" {
		return o, errors.New("no directory given; name the directory to write the PKI to")
	}
	if len(o.ServerKeys) == 0 {
		o.ServerKeys = []KeyType{ECDSAP256}
	}
	seen := map[KeyType]bool{}
	for _, k := range o.ServerKeys {
		if !k.Valid() {
			return o, fmt.Errorf("server key type %q is not supported (valid: %s)", string(k), validKeyTypeNames())
		}
		if seen[k] {
			return o, fmt.Errorf("server key type %s is listed twice; each key type names one file", k)
		}
		seen[k] = true
	}
	if len(o.Hosts) == 0 {
		o.Hosts = DefaultHosts
	}
	if _, _, err := splitHosts(o.Hosts); err != nil {
		return o, err
	}
	if o.Clients < 0 {
		return o, fmt.Errorf("number of clients %d is negative; use 0 or more", o.Clients)
	}
	if o.ClientKey == "" {
		o.ClientKey = ECDSAP256
	}
	if !o.ClientKey.Valid() {
		return o, fmt.Errorf("client key type %q is not supported (valid: %s)", string(o.ClientKey), validKeyTypeNames())
	}
	if o.P12Iterations < 0 || o.P12Iterations > MaxP12Iterations {
		return o, fmt.Errorf("PKCS#12 iteration count %d is out of range; use a count from 1 to %d, or 0 for the default (%d)", o.P12Iterations, MaxP12Iterations, DefaultP12Iterations)
	}
	if o.Clients > MaxClients {
		return o, fmt.Errorf("number of clients %d is over %d", o.Clients, MaxClients)
	}
	return o, nil
}

// prepareDir creates dir, or checks that it holds no PKI yet; with force
// it returns the old PKI's files (and only those), which the new PKI
// replaces once it is whole.
func prepareDir(dir string, force bool) ([]string, error) {
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return nil, fmt.Errorf("create directory: %w", err)
	}
	var existing []string
	for _, p := range pkiPatterns {
		m, err := filepath.Glob(filepath.Join(dir, p))
		if err != nil {
			return nil, err
		}
		existing = append(existing, m...)
	}
	if len(existing) == 0 {
		return nil, nil
	}
	slices.Sort(existing)
	if !force {
		names := make([]string, len(existing))
		for i, e := range existing {
			names[i] = filepath.Base(e)
		}
		if len(names) > 4 {
			names = append(names[:4], fmt.Sprintf("and %d more", len(existing)-4))
		}
		return nil, &ExistsError{Dir: dir, Files: names}
	}
	return existing, nil
}

// ExistsError is Init's refusal to write into a directory that already
// holds a PKI, without Force. Files names (some of) the files found.
type ExistsError struct {
	Dir   string
	Files []string
}

func (e *ExistsError) Error() string {
	return fmt.Sprintf("%s already holds a PKI (%s); use another directory, or replace it",
		e.Dir, strings.Join(e.Files, ", "))
}
