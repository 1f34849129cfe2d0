package servecmd

import (
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/keys"
	"github.com/tlsbench/tlsbench/server"
)

// ServerFlags are the built-in server's flags. One definition serves
// `tlsbench serve` and `tlsbench run` (for the server run starts), so the
// two cannot drift apart.
type ServerFlags struct {
	Identities       []server.IdentityFiles
	p12PasswordFile  string
	constraints      string
	Listen           string
	Mutual           bool
	sessionStore     string
	sessionCapacity  int
	sessionTTL       time.Duration
	ticketKeys       string
	revoked          string
	handshakeTimeout time.Duration
}

// DefineServerFlags defines them on fs. withRevoked adds --revoked, which only serve has: run issues new client
// certificates every time, so no list given beforehand could name them.
func DefineServerFlags(fs *command.FlagSet, defaultListen string, withRevoked bool) *ServerFlags {
	f := &ServerFlags{}
	fs.Def("identity", identityFlag{&f.Identities})
	fs.DefString(&f.p12PasswordFile, "p12-password-file", "")
	fs.DefString(&f.constraints, "constraints", "")
	fs.DefString(&f.Listen, "listen", defaultListen)
	fs.DefBool(&f.Mutual, "mutual", false)
	fs.DefString(&f.sessionStore, "session-store", server.StoreTickets)
	fs.DefInt(&f.sessionCapacity, "session-capacity", server.DefaultSessionCapacity)
	fs.DefDuration(&f.sessionTTL, "session-ttl", server.DefaultSessionTTL)
	fs.DefString(&f.ticketKeys, "ticket-keys", "")
	if withRevoked {
		fs.DefString(&f.revoked, "revoked", "")
	}
	fs.DefDuration(&f.handshakeTimeout, "handshake-timeout", 10*time.Second)
	return f
}

// Apply copies the flags into o and validates them.
func (f *ServerFlags) Apply(o *server.Options, isSet func(string) bool) error {
	if len(f.Identities) > 0 {
		o.Identities = f.Identities
	}
	o.P12PasswordFile = f.p12PasswordFile
	o.Constraints = f.constraints
	if _, err := keys.ParseConstraints(f.constraints); err != nil {
		return command.Usagef("--constraints: %v", err)
	}
	if f.p12PasswordFile != "" && !command.FileExists(f.p12PasswordFile) {
		return command.Usagef("--p12-password-file %s: no such file", f.p12PasswordFile)
	}
	o.Listen = f.Listen
	o.Mutual = f.Mutual
	o.SessionStore = f.sessionStore
	o.SessionCapacity = f.sessionCapacity
	o.SessionTTL = f.sessionTTL
	o.TicketKeysFile = f.ticketKeys
	o.RevokedFile = f.revoked
	o.HandshakeTimeout = f.handshakeTimeout
	if f.sessionCapacity < 1 || f.sessionCapacity > server.MaxSessionCapacity {
		return command.Usagef("--session-capacity %d: must be between 1 and %d", f.sessionCapacity, server.MaxSessionCapacity)
	}
	if f.sessionTTL <= 0 || f.sessionTTL > server.MaxSessionTTL {
		return command.Usagef("--session-ttl %v: must be positive and at most %v", f.sessionTTL, server.MaxSessionTTL)
	}
	if f.handshakeTimeout <= 0 || f.handshakeTimeout > server.MaxHandshakeTimeout {
		return command.Usagef("--handshake-timeout %v: must be positive and at most %v", f.handshakeTimeout, server.MaxHandshakeTimeout)
	}
	for flag, path := range map[string]string{"--ticket-keys": f.ticketKeys, "--revoked": f.revoked} {
		if path != "" && !command.FileExists(path) {
			return command.Usagef("%s %s: no such file", flag, path)
		}
	}
	if f.revoked != "" && !f.Mutual {
		return command.Usagef("--revoked applies to client certificates: add --mutual")
	}
	if f.sessionStore != server.StoreStateful && (isSet("session-capacity") || isSet("session-ttl")) {
		return command.Usagef("--session-capacity and --session-ttl size the stateful store: add --session-store stateful")
	}
	if f.p12PasswordFile != "" && !hasP12(f.Identities) {
		return command.Usagef("--p12-password-file is the password of a PKCS#12 --identity, and none was given")
	}
	return nil
}

// LoadIdentities validates the --identity files with the key manager
// before any work starts, so a rule violation or a wrong password is a
// usage error naming the file; it returns the identities' descriptions.
func (f *ServerFlags) LoadIdentities(keyCache bool) ([]keys.IdentityInfo, error) {
	o := server.Options{Identities: f.Identities, P12PasswordFile: f.p12PasswordFile, Constraints: f.constraints, DisableKeyCache: !keyCache}
	km, err := o.KeyManager()
	if err != nil {
		return nil, command.Usagef("--identity: %s", command.UserText(err))
	}
	return km.Identities(), nil
}

// identityFlag appends one identity per use of --identity. It does not
// split on commas: CERT.pem,KEY.pem is one identity.
type identityFlag struct{ vals *[]server.IdentityFiles }

// Elements are the identities as --identity takes them, one each.
func (f identityFlag) Elements() []string {
	var out []string
	for _, v := range *f.vals {
		out = append(out, server.IdentitySource(v).String())
	}
	return out
}

func (f identityFlag) String() string {
	if f.vals == nil {
		return ""
	}
	var parts []string
	for _, v := range *f.vals {
		parts = append(parts, server.IdentitySource(v).String())
	}
	return strings.Join(parts, " ")
}

func (f identityFlag) Set(s string) error {
	src, err := keys.ParseSource(s)
	if err != nil {
		return err
	}
	*f.vals = append(*f.vals, server.IdentityFiles{Cert: src.CertFile, Key: src.KeyFile, P12: src.P12File})
	return nil
}

func hasP12(ids []server.IdentityFiles) bool {
	for _, id := range ids {
		if id.P12 != "" {
			return true
		}
	}
	return false
}
