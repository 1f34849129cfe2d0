// Package keys is the server's key manager: it loads the server's
// identities (PEM certificate and key pairs, or PKCS#12 files), validates
// each of them once at load against algorithm constraints, and chooses one
// per ClientHello through tls.Config.GetCertificate.
//
// It exists because of the fourth case in DESIGN.md: a TLS stack that switched
// to a validating key manager lost half of its full-handshake throughput,
// because it decrypted the PKCS#12 private key (PBKDF2) on every handshake.
// tlsbench's server uses this manager, and can measure both behaviours
// (WithKeyCache).
//
// # Validation, once
//
// New checks every certificate a file holds, the root included when the
// file has one: its signature algorithm against the Constraints (no MD5 or
// SHA-1 by default; Go never checks a root's self-signature, so the
// algorithm is checked by name), RSA key sizes (at least 2048 bits by
// default), validity dates, that each certificate was issued by the next
// one, that the leaf may authenticate a TLS server, and that the private
// key belongs to the leaf. A violation is a *Violation naming the file and
// the rule. Nothing is re-validated per handshake.
//
// # Selection per ClientHello
//
// Manager.GetCertificate chooses, in this order:
//
//  1. by SNI: identities whose leaf names the requested host (DNS names with
//     wildcards, IP addresses); when none does, or there is no SNI, all
//     identities are candidates, as servers with a default certificate do;
//  2. by what the client can verify: the key must fit its
//     signature_algorithms (and, in TLS 1.2, a cipher suite it offers;
//     crypto/tls's ClientHelloInfo.SupportsCertificate decides), and every
//     signature in the chain sent must be one its signature_algorithms_cert
//     lists. When the client sent no signature_algorithms_cert, RFC 8446
//     says signature_algorithms applies to certificates too; a chain that
//     fits it is then preferred but not required, because RFC 8446 section
//     4.4.2.2 lets servers send such chains and clients such as
//     `openssl s_client -sigalgs rsa_pss_rsae_sha256` verify them fine;
//  3. by server preference: ECDSA, then Ed25519, then RSA (WithPreference),
//     and load order within a key algorithm.
//
// crypto/tls does not expose signature_algorithms_cert, so the manager
// reads it from the ClientHello bytes, which RecordClientHello (or
// RecordingListener) keeps for each connection. Without a recorder the
// manager falls back to signature_algorithms and counts the handshake in
// Stats.HelloUnavailable. The recorder reassembles the ClientHello from
// its records in one pass, and refuses one spread over more, smaller
// records than real clients send (ErrFragmentedHello), which would make
// the server do per-record work for every byte.
//
// When no identity is acceptable the handshake fails with a
// handshake_failure alert, the manager logs which rule excluded each
// identity, and Rejection reports it for the connection. crypto/tls sends
// internal_error for any error GetCertificate returns, so the manager
// instead returns a certificate without a usable key, for which crypto/tls
// itself sends handshake_failure (TLS 1.2: no cipher suite fits; TLS 1.3:
// no signature scheme fits); tests pin this for both versions.
//
// # Key cache
//
// With the cache on (the default) private keys are decrypted once, at
// load. With it off the manager keeps only the password, and every
// handshake that signs with the key (every full handshake) reads the file
// again and decodes it: for a PKCS#12 file that is the PBKDF2 key
// derivation and the decryption that the motivating case paid per
// handshake. The key is loaded when crypto/tls first uses it, not when the
// certificate is chosen, because Go's TLS 1.2 server asks for a certificate
// even when it then resumes a session and never signs; resumed handshakes
// therefore cost the same with the cache on or off, as in the original
// case. Stats counts the loads and decryptions.
//
// # Imports
//
// keys owns identity loading, validation and selection. It imports pki
// (reading PEM and PKCS#12 files) and nothing else of tlsbench above it:
// never server, loadgen, runner or internal/cli. Its errors speak of the
// files and settings they concern, never of command-line flags.
package keys
