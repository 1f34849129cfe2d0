// Package pki generates the test PKI that tlsbench benchmarks with: a root
// CA, optionally intermediates, server identities for every benchmarked key
// type (ECDSA P-256 and P-384, RSA 2048 and 3072, Ed25519) and any number of
// mutual-TLS client identities, in memory (NewCA, CA.IssueServer,
// CA.IssueClient) or on disk (Init), as PEM and PKCS#12. It also reads
// identities back (LoadIdentityPEM, LoadPKCS12) and computes the SHA-256
// thumbprints that scope client session caches.
//
// # A test PKI only
//
// Nothing here is meant to protect production traffic. Certificates are
// valid from an hour before creation (to absorb clock skew between the
// processes and VMs of a run) for one year, long enough for a PKI written by
// `tlsbench pki init` to be reused across runs. The CA keys of a PKI written
// to disk are not kept, so a root that ends up in some trust store cannot be
// used to mint further certificates. Options exist to build deliberately bad
// certificates for negative tests: expired or not yet valid ones
// (WithValidity), 1024-bit RSA keys (GenerateRSA) and SHA-1 signatures
// (WithSignatureAlgorithm with x509.SHA1WithRSA or x509.ECDSAWithSHA1; Go 1.26
// still creates these but no longer verifies them, and refuses MD5 entirely).
//
// # Why private key files are 0600
//
// Key and PKCS#12 files are written with mode 0600 (and replace any older
// file, whatever its mode), certificates with 0644, a new directory with
// 0700. Benchmark machines are often shared, and servers such as nginx and
// tools such as ssh warn about or refuse keys that other users can read. Files
// are written to a temporary file created 0600 and renamed into place, so a
// key is never briefly readable by others and a reader never sees half a file.
//
// # Why PKCS#12 files use PBES2
//
// PKCS#12 files are written as OpenSSL 3 writes them by default: PBES2 with
// PBKDF2-HMAC-SHA256 and AES-256-CBC for certificates and key, HMAC-SHA256
// for integrity (go-pkcs12's Modern2023 encoder). The traditional formats
// are weak (RC2 or 3DES keyed by SHA-1, a SHA-1 MAC derived with a single
// iteration), and the RC2 one cannot be read by OpenSSL 3 without its legacy
// provider. The iteration count defaults to 2048, as OpenSSL's, so
// that tlsbench measures the key-loading cost of the files servers really
// use; see DefaultP12Iterations.
//
// pki owns generating and reading certificates and keys. It imports
// nothing of tlsbench above the small internal packages: keys, tlsconf,
// server and the CLI build on it, never the reverse.
package pki
