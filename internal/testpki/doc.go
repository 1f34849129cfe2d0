// Package testpki gives tests a TLS server configuration with a fresh test
// identity in one call, so that test files do not each repeat the CA,
// certificate and configuration set-up.
//
// It is test support: it imports testing (and pki), so no
// production package may import it; internal/archtest checks.
package testpki
