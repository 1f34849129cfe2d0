package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"slices"
	"strings"
)

// KeyType names a key algorithm and size that tlsbench can generate and
// benchmark. The string values are the ones users type (`--key`,
// `--server-keys`) and the ones written into results (`key_type`), so they are
// a contract: do not rename them.
type KeyType string

// The supported key types.
const (
	ECDSAP256 KeyType = "ecdsa-p256"
	ECDSAP384 KeyType = "ecdsa-p384"
	RSA2048   KeyType = "rsa-2048"
	RSA3072   KeyType = "rsa-3072"
	Ed25519   KeyType = "ed25519"
)

// keyTypes is in server-preference order (ECDSA before RSA), which is also
// the order users see in help and error messages.
var keyTypes = []KeyType{ECDSAP256, ECDSAP384, RSA2048, RSA3072, Ed25519}

// KeyTypes returns every supported key type, in a stable order. The slice is
// a copy; callers may modify it.
func KeyTypes() []KeyType {
	return append([]KeyType(nil), keyTypes...)
}

// validKeyTypeNames is the list shown in error messages, so that every
// "unknown key type" error tells the user what to type instead.
func validKeyTypeNames() string {
	names := make([]string, len(keyTypes))
	for i, k := range keyTypes {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// ParseKeyType parses a key type name such as "ecdsa-p256". Matching ignores
// case and surrounding space; the error lists the valid names.
func ParseKeyType(s string) (KeyType, error) {
	want := strings.ToLower(strings.TrimSpace(s))
	for _, k := range keyTypes {
		if string(k) == want {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown key type %q (valid: %s)", s, validKeyTypeNames())
}

// ParseKeyTypes parses a comma-separated list such as
// "ecdsa-p256,rsa-2048,ed25519", as flags like --server-keys take it.
// Duplicates are an error because each key type names one file in a PKI
// directory; an empty list is an error because the caller asked for keys.
func ParseKeyTypes(s string) ([]KeyType, error) {
	var out []KeyType
	seen := map[KeyType]bool{}
	for _, f := range strings.Split(s, ",") {
		if strings.TrimSpace(f) == "" {
			continue
		}
		k, err := ParseKeyType(f)
		if err != nil {
			return nil, err
		}
		if seen[k] {
			return nil, fmt.Errorf("key type %s is listed twice in %q", k, s)
		}
		seen[k] = true
		out = append(out, k)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty key type list %q (valid: %s)", s, validKeyTypeNames())
	}
	return out, nil
}

// String returns the key type's name.
func (k KeyType) String() string { return string(k) }

// Valid reports whether k is one of the supported key types.
func (k KeyType) Valid() bool { return slices.Contains(keyTypes, k) }

// MarshalText implements encoding.TextMarshaler, so that KeyType works with
// flag.TextVar and in JSON.
func (k KeyType) MarshalText() ([]byte, error) { return []byte(k), nil }

// UnmarshalText implements encoding.TextUnmarshaler with ParseKeyType's rules.
func (k *KeyType) UnmarshalText(b []byte) error {
	v, err := ParseKeyType(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// Generate creates a new private key of this type. RSA keys take from tens of
// milliseconds (2048) to seconds (3072) to generate; callers that need many
// identities of one RSA type may generate one key and pass it with WithKey.
func (k KeyType) Generate() (crypto.Signer, error) {
	switch k {
	case ECDSAP256:
		return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case ECDSAP384:
		return ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	case RSA2048:
		return GenerateRSA(2048)
	case RSA3072:
		return GenerateRSA(3072)
	case Ed25519:
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		return priv, nil
	}
	return nil, fmt.Errorf("cannot generate key: unknown key type %q (valid: %s)", string(k), validKeyTypeNames())
}

// GenerateRSA creates an RSA key of any size crypto/rsa accepts (1024 bits and
// up). It exists for negative tests: a 1024-bit key is not a KeyType because
// no benchmark should use it, but the key manager must be shown to reject it.
func GenerateRSA(bits int) (crypto.Signer, error) {
	key, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		return nil, fmt.Errorf("generate %d-bit RSA key: %w", bits, err)
	}
	return key, nil
}

// KeyTypeOf returns the KeyType of a public key, and false for keys that are
// not one of the supported types (an RSA 1024-bit or 4096-bit key, a P-521 key).
func KeyTypeOf(pub crypto.PublicKey) (KeyType, bool) {
	switch p := pub.(type) {
	case *ecdsa.PublicKey:
		switch p.Curve {
		case elliptic.P256():
			return ECDSAP256, true
		case elliptic.P384():
			return ECDSAP384, true
		}
	case *rsa.PublicKey:
		switch p.N.BitLen() {
		case 2048:
			return RSA2048, true
		case 3072:
			return RSA3072, true
		}
	case ed25519.PublicKey:
		return Ed25519, true
	}
	return "", false
}

// KeyTypeName names any public key as key types are named (ecdsa-p256,
// rsa-2048, ed25519), sizes and curves tlsbench does not issue included
// (rsa-4096, ecdsa-p521), for recording what an external server
// presented; "" for another kind of key.
func KeyTypeName(pub crypto.PublicKey) string {
	if kt, ok := KeyTypeOf(pub); ok {
		return string(kt)
	}
	switch p := pub.(type) {
	case *rsa.PublicKey:
		return fmt.Sprintf("rsa-%d", p.N.BitLen())
	case *ecdsa.PublicKey:
		return "ecdsa-" + strings.ToLower(strings.ReplaceAll(p.Curve.Params().Name, "-", ""))
	}
	return ""
}

// DescribeKey names a public key for error messages ("RSA 1024-bit",
// "ECDSA P-256"), so that a mismatch says what was found, not just "wrong".
func DescribeKey(pub crypto.PublicKey) string {
	switch p := pub.(type) {
	case *ecdsa.PublicKey:
		return "ECDSA " + p.Curve.Params().Name
	case *rsa.PublicKey:
		return fmt.Sprintf("RSA %d-bit", p.N.BitLen())
	case ed25519.PublicKey:
		return "Ed25519"
	case nil:
		return "no key"
	}
	return fmt.Sprintf("%T", pub)
}
