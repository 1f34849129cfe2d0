package client

import "errors"

// Words is how a case's errors and notes name the settings a user can
// change, and the advice they give for failures another setting fixes.
// loadgen knows no command line: a caller that has one (tlsbench run,
// through runner) says here what its user calls each setting. The zero
// value names a setting by its field in the case (MinResumption) and
// gives advice that names no setting.
type Words struct {
	// Names maps a field of HandshakeCase or ThroughputCase
	// (MinResumption, MaxErrorRate, ConnTimeout, MaxDuration,
	// TargetError, KTLS) to what the user calls it.
	Names map[string]string
	// Advice maps a failure (AdviceUntrusted, AdviceClientCert,
	// AdviceNotEcho, the AdviceProxy refusals) to what the user can do
	// about it.
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
	// A proxy's refusal of CONNECT (ProxyError).
	AdviceProxyUntrusted:   "the proxy does not trust the target's certificate: give the proxy the CA that issued it",
	AdviceProxyUnreachable: "the proxy could not reach the target: is it running and reachable from the proxy?",
	AdviceProxyFull:        "the proxy is at its connection limit: lower the concurrency, or raise the proxy's limit",
	AdviceProxyPort:        "the proxy does not tunnel to this port: allow it in the proxy's rules",
	AdviceProxySource:      "the proxy does not serve this client's address: allow it in the proxy's rules",
	AdviceProxyDest:        "the proxy does not tunnel to the target's address: allow it in the proxy's rules, unless it is one no proxy should reach (link-local, multicast)",
}

// ProxyAdvice sets the advice of a proxy's refusal (ProxyError) that err
// wraps from w, when w has advice for it; it reports whether it did.
// A caller that names its settings in Words calls it on the errors of
// its cases: the dialer that meets the refusal knows no Words.
func (w Words) ProxyAdvice(err error) bool {
	var pe *ProxyError
	if !errors.As(err, &pe) {
		return false
	}
	f := pe.Failure()
	a := w.Advice[f]
	if f == "" || a == "" {
		return false
	}
	pe.Advice = a
	return true
}

// name is what the user calls the field.
func (w Words) Name(field string) string {
	if n := w.Names[field]; n != "" {
		return n
	}
	return field
}

// advice is what to tell the user about a failure.
func (w Words) AdviceFor(failure string) string {
	if a := w.Advice[failure]; a != "" {
		return a
	}
	return defaultAdvice[failure]
}
