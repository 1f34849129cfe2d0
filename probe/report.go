package probe

import (
	"time"

	"github.com/tlsbench/tlsbench/results"
)

// Status is the answer to one question about the server.
type Status string

const (
	// Yes and No are answers tlsbench observed.
	Yes Status = "yes"
	No  Status = "no"
	// NotTested means tlsbench could not answer (Go's client cannot do
	// it, or an earlier step did not get far enough); Detail says why.
	// It is never a polite "no".
	NotTested Status = "not tested"
	// Error means the check was attempted and failed for a reason that
	// does not answer the question (a timeout, a reset, a rejected client
	// certificate).
	Error Status = "error"
)

// Finding is a Status with the evidence or the reason behind it.
type Finding struct {
	Status Status `json:"status"`
	Detail string `json:"detail,omitempty"`
}

func yes(detail string) Finding       { return Finding{Yes, detail} }
func no(detail string) Finding        { return Finding{No, detail} }
func notTested(reason string) Finding { return Finding{NotTested, reason} }
func failed(detail string) Finding    { return Finding{Error, detail} }

// Report is what a probe found. It is plain data: render it with
// WriteTable or WriteJSON, or marshal it as it is.
type Report struct {
	Target     string `json:"target"`
	ServerName string `json:"server_name"`
	// Insecure says certificate verification was off (Options.Insecure).
	Insecure bool `json:"insecure"`
	// Request is the first message sent after each handshake.
	Request Request `json:"request"`
	// RequestAuto says Request was chosen by asking the server
	// (Options.Request RequestAuto); RequestChoice says how it
	// answered each request tried.
	RequestAuto   bool     `json:"request_auto,omitempty"`
	RequestChoice string   `json:"request_choice,omitempty"`
	ALPNOffered   []string `json:"alpn_offered,omitempty"`
	// ClientCertificate names the client identity presented, if any.
	ClientCertificate string    `json:"client_certificate,omitempty"`
	Started           time.Time `json:"started"`
	DurationMS        float64   `json:"duration_ms"`

	// Transport is "quic" for a probe over QUIC (Options.QUIC), whose
	// findings are in QUIC rather than Versions; absent for TCP.
	Transport string `json:"transport,omitempty"`

	Certificate Chain     `json:"certificate"`
	Versions    []Version `json:"versions"`
	QUIC        *QUIC     `json:"quic,omitempty"`

	Env results.Env `json:"env"`

	// advice writes the settings named in advice in the words of the
	// Options that made the report (Options.SettingName).
	advice func(string, ...any) string
}

// Answered reports whether any handshake with the server completed
// (whatever the version did): a probe in which none did tells nothing
// about the server's TLS, only that it did not answer.
func (r *Report) Answered() bool {
	if r.QUIC != nil && r.QUIC.Handshake.Status == Yes {
		return true
	}
	for _, v := range r.Versions {
		if v.Accepted.Status == Yes || v.Accepted.Status == No {
			return true
		}
	}
	return false
}

// Chain is the server's certificate chain as sent in the first successful
// handshake, and whether it verified.
type Chain struct {
	Verified     Finding       `json:"verified"`
	Certificates []Certificate `json:"certificates,omitempty"`
}

// Certificate describes one certificate of the chain.
type Certificate struct {
	Subject string `json:"subject"`
	Issuer  string `json:"issuer"`
	// KeyType is "ECDSA", "RSA", "Ed25519" or Go's name for others;
	// KeyBits the key size (curve size for ECDSA); KeyName both, as
	// "ECDSA P-256" or "RSA 2048".
	KeyType            string    `json:"key_type"`
	KeyBits            int       `json:"key_bits"`
	KeyName            string    `json:"key"`
	SignatureAlgorithm string    `json:"signature_algorithm"`
	NotBefore          time.Time `json:"not_before"`
	NotAfter           time.Time `json:"not_after"`
	// DaysLeft until NotAfter at probe time (negative when expired).
	DaysLeft    int      `json:"days_left"`
	DNSNames    []string `json:"dns_names,omitempty"`
	IPAddresses []string `json:"ip_addresses,omitempty"`
	SHA256      string   `json:"sha256"`
}

// Version is what one TLS version showed.
type Version struct {
	Version string `json:"version"` // "1.0", "1.1", "1.2", "1.3"
	// Accepted: a full handshake pinned to this version succeeded.
	Accepted Finding `json:"accepted"`
	// Negotiated in the full handshake.
	CipherSuite string `json:"cipher_suite,omitempty"`
	Group       string `json:"group,omitempty"`
	ALPN        string `json:"alpn,omitempty"`
	// ClientCertRequested: the server asked for a client certificate in
	// the full handshake.
	ClientCertRequested *bool `json:"client_cert_requested,omitempty"`
	// Response is the first line of the server's answer to the request.
	Response string `json:"response,omitempty"`

	// Tickets received on one full-handshake connection.
	Tickets Tickets `json:"tickets"`
	// Resumption with a ticket: TLS 1.2 session tickets (RFC 5077) or
	// TLS 1.3 PSK resumption.
	Resumption Finding `json:"resumption"`
	// SessionIDResumption is TLS 1.2 resumption by session ID (RFC 5246
	// abbreviated handshake): a full handshake offering no ticket, then
	// one connection offering its session ID alone. TLS 1.2 only.
	SessionIDResumption *Finding `json:"session_id_resumption,omitempty"`
	// SessionIDConcurrent is Concurrency simultaneous resumptions of one
	// session ID: all resume when the server's cache is shared by all
	// its connections, some when each worker process has its own.
	// TLS 1.2 only.
	SessionIDConcurrent *SessionIDLoad `json:"session_id_under_concurrency,omitempty"`
	// ResumesBy sums up how TLS 1.2 resumes: "ticket", "session_id",
	// "both" or "neither"; absent when either way was not answered
	// (not tested, or an error). TLS 1.2 only.
	ResumesBy string `json:"resumes_by,omitempty"`
	// TicketReuse: yes when one ticket resumed twice, no when the second
	// use was refused while a fresh ticket still resumed (single-use
	// tickets).
	TicketReuse Finding `json:"ticket_reuse"`
	// MutualResumption: resumption with a client certificate, when one
	// was given and the server asked for it.
	MutualResumption Finding `json:"mutual_resumption"`
	// Load is the resumption rate under concurrent load.
	Load Load `json:"resumption_under_load"`
}

// Tickets describes the session tickets one full handshake brought.
type Tickets struct {
	Finding
	// PerConnection is the number of tickets on a full-handshake
	// connection; OnResumption on a resumed one (nil when none resumed).
	PerConnection int  `json:"per_connection"`
	OnResumption  *int `json:"on_resumption,omitempty"`
	// LifetimeSeconds is each ticket's lifetime hint (TLS 1.2: 0 means
	// unspecified); empty when it could not be read.
	LifetimeSeconds []uint32 `json:"lifetime_seconds,omitempty"`
	// Method says how the tickets were counted.
	Method string `json:"method,omitempty"`
}

// Load is the resumption rate under concurrent handshakes.
type Load struct {
	Finding
	Concurrency      int              `json:"concurrency,omitempty"`
	Handshakes       int64            `json:"handshakes"`
	Resumed          int64            `json:"resumed"`
	ResumptionRate   *float64         `json:"resumption_rate,omitempty"`
	Errors           int64            `json:"errors"`
	ErrorsByKind     map[string]int64 `json:"errors_by_kind,omitempty"`
	HandshakesPerSec float64          `json:"handshakes_per_sec,omitempty"`
	// TicketReuse is how the clients used their tickets: "multi" (each
	// ticket offered again and again) or "single" (each once).
	TicketReuse string `json:"ticket_reuse,omitempty"`
}

// SessionIDLoad is one round of simultaneous resumptions of one TLS 1.2
// session by its ID.
type SessionIDLoad struct {
	Finding
	Concurrency int `json:"concurrency,omitempty"`
	// Resumed were abbreviated handshakes whose server Finished
	// verified; NewSessions got a new session instead; Errors failed
	// otherwise.
	Resumed     int `json:"resumed"`
	NewSessions int `json:"new_sessions"`
	Errors      int `json:"errors"`
}

// The values of Version.ResumesBy.
const (
	ResumesByTicket    = "ticket"
	ResumesBySessionID = "session_id"
	ResumesByBoth      = "both"
	ResumesByNeither   = "neither"
)

// Lookup returns the report of version v ("1.2"), or nil.
func (r *Report) Lookup(v string) *Version {
	for i := range r.Versions {
		if r.Versions[i].Version == v {
			return &r.Versions[i]
		}
	}
	return nil
}

// adviceText is the advice of format and args, its settings named as
// the probe's caller named them.
func (r *Report) adviceText(format string, args ...any) string {
	if r.advice == nil {
		return Options{}.advice(format, args...)
	}
	return r.advice(format, args...)
}
