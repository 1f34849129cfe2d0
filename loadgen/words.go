package loadgen

// Words is how a case's errors and notes name the settings a user can
// change, and the advice they give for failures another setting fixes.
// loadgen knows no command line: a caller that has one (tlsbench run,
// through runner) says here what its user calls each setting. The zero
// value names a setting by its field in the case (MinResumption) and
// gives advice that names no setting.
type Words struct {
	// Names maps a field of HandshakeCase or ThroughputCase
	// (MinResumption, MaxErrorRate, ConnTimeout, MaxDuration, KTLS) to
	// what the user calls it.
	Names map[string]string
	// Advice maps a failure (AdviceUntrusted, AdviceClientCert,
	// AdviceNotEcho) to what the user can do about it.
	Advice map[string]string
}

// The failures Words.Advice can advise on.
const (
	// AdviceUntrusted: the server's certificate did not verify.
	AdviceUntrusted = "untrusted"
	// AdviceWrongName: the server's certificate is not for the name the
	// client asked for.
	AdviceWrongName = "wrong-name"
	// AdviceClientCert: the server asked for a client certificate that
	// the client did not present.
	AdviceClientCert = "client-cert"
	// AdviceNotEcho: the target answered the ping with something else
	// than its echo: it speaks another protocol.
	AdviceNotEcho = "not-echo"
)

// defaultAdvice is what a case says without Words.Advice.
var defaultAdvice = map[string]string{
	AdviceUntrusted:  "give the client the CA that issued the server's certificate, or skip verification",
	AdviceWrongName:  "the certificate is not for the server name asked for: give the name it is for, or skip verification",
	AdviceClientCert: "the server wants a client certificate: give the case a client identity",
	AdviceNotEcho:    "the target is not an echo server: give the case an Exchange that speaks its protocol",
}

// name is what the user calls the field.
func (w Words) name(field string) string {
	if n := w.Names[field]; n != "" {
		return n
	}
	return field
}

// advice is what to tell the user about a failure.
func (w Words) advice(failure string) string {
	if a := w.Advice[failure]; a != "" {
		return a
	}
	return defaultAdvice[failure]
}
