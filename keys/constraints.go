package keys

import (
	"crypto/x509"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Constraints is the operator's policy for the server's identities,
// checked once when the Manager loads them. The zero value allows
// everything; DefaultConstraints is what tlsbench uses.
type Constraints struct {
	// MinRSABits is the smallest RSA modulus allowed for any key in a
	// chain (leaf, intermediates, root); 0 allows any size.
	MinRSABits int
	// ForbiddenSignatureAlgorithms may not sign any certificate in a
	// chain, the root's self-signature included.
	ForbiddenSignatureAlgorithms []x509.SignatureAlgorithm
}

// Constraint groups: the --constraints tokens that forbid or allow a
// family of signature algorithms, and the rule named in a Violation.
var constraintGroups = []struct {
	name string // "sha1": tokens no-sha1 and allow-sha1
	algs []x509.SignatureAlgorithm
}{
	// MD2 is grouped with MD5: both are broken, and nobody asks for one
	// without the other.
	{"md5", []x509.SignatureAlgorithm{x509.MD2WithRSA, x509.MD5WithRSA}},
	{"sha1", []x509.SignatureAlgorithm{x509.SHA1WithRSA, x509.DSAWithSHA1, x509.ECDSAWithSHA1}},
}

// DefaultMinRSABits is the default RSA minimum: NIST SP 800-131A and the
// CA/Browser Forum baseline requirements both set 2048 bits.
const DefaultMinRSABits = 2048

// DefaultConstraints forbids MD5 (and MD2) and SHA-1 signatures and RSA
// keys under 2048 bits.
func DefaultConstraints() Constraints {
	c := Constraints{MinRSABits: DefaultMinRSABits}
	for _, g := range constraintGroups {
		c.ForbiddenSignatureAlgorithms = append(c.ForbiddenSignatureAlgorithms, g.algs...)
	}
	return c
}

// ParseConstraints parses the --constraints syntax: comma-separated rules
// applied in order, starting from DefaultConstraints, so that relaxing one
// rule (`min-rsa=1024`) keeps the others:
//
//	min-rsa=N            RSA keys of at least N bits (0: any size)
//	no-sha1, allow-sha1  forbid or allow SHA-1 signatures (RSA, ECDSA, DSA)
//	no-md5, allow-md5    forbid or allow MD5 and MD2 signatures
//	none                 start from no constraints at all
//	default              start from the defaults again
//
// "min-rsa=2048,no-sha1,no-md5" is the default policy spelled out. An
// empty string is the default policy.
func ParseConstraints(s string) (Constraints, error) {
	c := DefaultConstraints()
	for _, tok := range strings.Split(s, ",") {
		tok = strings.ToLower(strings.TrimSpace(tok))
		if tok == "" {
			continue
		}
		switch {
		case tok == "none":
			c = Constraints{}
			continue
		case tok == "default":
			c = DefaultConstraints()
			continue
		case strings.HasPrefix(tok, "min-rsa="):
			v := strings.TrimPrefix(tok, "min-rsa=")
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > 16384 {
				return Constraints{}, fmt.Errorf("constraint %q: %q is not a number of bits between 0 and 16384 (example: min-rsa=2048)", tok, v)
			}
			c.MinRSABits = n
			continue
		}
		verb, group, _ := strings.Cut(tok, "-")
		i := slices.IndexFunc(constraintGroups, func(g struct {
			name string
			algs []x509.SignatureAlgorithm
		}) bool {
			return g.name == group
		})
		if i < 0 || verb != "no" && verb != "allow" {
			return Constraints{}, fmt.Errorf("unknown constraint %q (valid: min-rsa=N, no-sha1, allow-sha1, no-md5, allow-md5, none, default)", tok)
		}
		c.ForbiddenSignatureAlgorithms = slices.DeleteFunc(c.ForbiddenSignatureAlgorithms, func(a x509.SignatureAlgorithm) bool {
			return slices.Contains(constraintGroups[i].algs, a)
		})
		if verb == "no" {
			c.ForbiddenSignatureAlgorithms = append(c.ForbiddenSignatureAlgorithms, constraintGroups[i].algs...)
		}
	}
	return c, nil
}

// String returns the constraints in ParseConstraints' syntax, starting
// from none so that the result means the same whatever the defaults
// become: "none,min-rsa=2048,no-md5,no-sha1". Forbidden algorithms outside
// the groups are listed by crypto/x509's names ("no-alg:SHA256-RSA"),
// which ParseConstraints does not read.
func (c Constraints) String() string {
	parts := []string{"none"}
	if c.MinRSABits > 0 {
		parts = append(parts, "min-rsa="+strconv.Itoa(c.MinRSABits))
	}
	rest := slices.Clone(c.ForbiddenSignatureAlgorithms)
	for _, g := range constraintGroups {
		if containsAll(rest, g.algs) {
			parts = append(parts, "no-"+g.name)
			rest = slices.DeleteFunc(rest, func(a x509.SignatureAlgorithm) bool { return slices.Contains(g.algs, a) })
		}
	}
	for _, a := range rest {
		parts = append(parts, "no-alg:"+a.String())
	}
	return strings.Join(parts, ",")
}

func containsAll(have, want []x509.SignatureAlgorithm) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// forbidRule names the rule that forbids alg: "no-sha1", "no-md5", or
// "no-alg:NAME" for algorithms outside the groups.
func forbidRule(alg x509.SignatureAlgorithm) string {
	for _, g := range constraintGroups {
		if slices.Contains(g.algs, alg) {
			return "no-" + g.name
		}
	}
	return "no-alg:" + alg.String()
}

// Rules a Violation names. RuleMinRSA and the signature rules ("no-sha1",
// "no-md5", "no-alg:NAME") come from the Constraints; the others are
// always checked, because a certificate that breaks them fails every
// client (or, for known-signature, cannot be checked against the policy).
const (
	RuleValidity    = "validity"        // not yet valid or expired
	RuleKeyMatch    = "key-match"       // private key is not the leaf's
	RuleServerAuth  = "server-auth"     // leaf's extended key usage excludes TLS servers
	RuleChainOrder  = "chain-order"     // a certificate is not issued by the next one
	RuleKnownSigAlg = "known-signature" // signature algorithm crypto/x509 cannot name
	RuleMinRSA      = "min-rsa"         // RSA key under Constraints.MinRSABits
)

// A Violation is an identity that breaks a rule. Its message names the
// file, the certificate and the rule, and says how to fix it.
type Violation struct {
	File   string // the file at fault (the certificate or PKCS#12 file)
	Rule   string // "no-sha1", "no-md5", "min-rsa", "validity", "key-match", ...
	Detail string // what is wrong, and the fix
}

func (v *Violation) Error() string {
	return fmt.Sprintf("%s: %s (rule %s)", v.File, v.Detail, v.Rule)
}
