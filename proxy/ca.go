package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/pki"
)

// Files of the CA the proxy writes in its PKI directory.
const (
	CACertFile = "proxy-ca.pem"
	CAKeyFile  = "proxy-ca-key.pem"
)

// caName is the common name of the CA the proxy writes: a certificate
// found in a trust store or a capture says what it is.
const caName = "tlsbench proxy CA"

// DefaultPKIDir is where the proxy keeps the CA it writes when it is
// given neither a CA nor a directory: per user, so that the CA clients
// were told to trust survives restarts.
func DefaultPKIDir() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", field.Errorf("PKIDir", nil, "no per-user configuration directory (%v): give %s DIR", err, field.Ref("PKIDir"))
	}
	return filepath.Join(dir, "tlsbench", "proxy"), nil
}

// Lifetimes of what the proxy signs. Its CA is trusted by clients for as
// long as it lives, so it lives a season, not years, and is renewed at a
// start that finds it near its end; a minted certificate lives a week,
// never past its CA, and the mint cache renews it a day before its end (renewAt).
const (
	caValidity   = 90 * 24 * time.Hour
	caRenewal    = 14 * 24 * time.Hour // twice a leaf's life
	leafValidity = 7 * 24 * time.Hour
	leafRenewal  = 24 * time.Hour
)

// loadCA returns the signing CA and the path of its certificate: the
// given files, or the CA in PKIDir, written there first if missing and
// written anew when it ends within caRenewal. Keys that group or others
// can reach, and a PKIDir they can write, are refused.
func loadCA(o Options, log *slog.Logger) (*pki.CA, string, error) {
	if o.CACert != "" {
		return givenCA(o.CACert, o.CAKey, log)
	}
	dir := o.PKIDir
	if dir == "" {
		var err error
		if dir, err = DefaultPKIDir(); err != nil {
			return nil, "", err
		}
	}
	cert, key := filepath.Join(dir, CACertFile), filepath.Join(dir, CAKeyFile)
	if err := pki.CheckPrivateDir(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, "", field.Errorf("PKIDir", nil, "%v", err)
	}
	dest, _ := parseDest(o.AllowDest) // checked by Validate
	_, cerr := os.Stat(cert)
	_, kerr := os.Stat(key)
	switch {
	case cerr == nil && kerr == nil:
		if err := pki.CheckPrivateKeyFile(key); err != nil {
			return nil, "", field.Errorf("PKIDir", nil, "%v", err)
		}
		ca, err := readCA(cert, key)
		if err != nil {
			return ca, cert, err
		}
		if time.Until(ca.Cert.NotAfter) > caRenewal {
			return ca, cert, checkCovers(ca.Cert, dest, dir)
		}
		// Written for the destinations allowed now: no check of the old
		// one's constraints is needed.
		ends := ca.Cert.NotAfter
		if ca, err = writeCA(dir, cert, key, dest.caConstraints()); err == nil {
			log.Warn("the proxy's CA ends soon: wrote a new one, which clients must trust instead",
				"ends", ends.Format(time.DateOnly), "ca", cert)
		}
		return ca, cert, err
	case cerr == nil || kerr == nil:
		return nil, "", field.Errorf("PKIDir", dir, "holds only one of %s and %s; remove it or restore the other", CACertFile, CAKeyFile)
	}
	ca, err := writeCA(dir, cert, key, dest.caConstraints())
	return ca, cert, err
}

// givenCA reads the CA of CACert and CAKey: its key private to its
// owner, its certificate valid now. One that ends within caRenewal is
// warned about: the proxy renews only the CA it writes itself.
func givenCA(cert, key string, log *slog.Logger) (*pki.CA, string, error) {
	ca, err := readCA(cert, key)
	if err != nil {
		return nil, "", err
	}
	if err := pki.CheckPrivateKeyFile(key); err != nil {
		return nil, "", field.Errorf("CAKey", nil, "%v", err)
	}
	if time.Now().After(ca.Cert.NotAfter) {
		return nil, "", field.Errorf("CACert", cert, "expired on %s: give a CA valid now", ca.Cert.NotAfter.Format(time.DateOnly))
	}
	if time.Until(ca.Cert.NotAfter) < caRenewal {
		log.Warn("--ca-cert ends soon: the certificates the proxy mints end with it, and clients refuse them after; give a CA valid longer",
			"ends", ca.Cert.NotAfter.UTC().Format(time.DateTime), "ca", cert)
	}
	return ca, cert, nil
}

// writeCA creates a CA limited to nc and writes it to dir (mode 0700,
// key 0600). It signs leaves only (path length zero): its key cannot
// make a CA below it.
func writeCA(dir, cert, key string, nc caConstraints) (*pki.CA, error) {
	if err := os.MkdirAll(dir, pki.DirMode); err != nil {
		return nil, field.Errorf("PKIDir", dir, "%v", unwrapPath(err))
	}
	now := time.Now()
	ca, err := pki.NewCA(pki.WithCommonName(caName), pki.WithLeafSigningOnly(), pki.WithValidity(now.Add(-time.Hour), now.Add(caValidity)))
	if err != nil {
		return nil, err
	}
	if ca, err = constrain(ca, nc); err != nil {
		return nil, err
	}
	// The key first: a certificate without its key would be a CA the
	// next start refuses.
	if err := pki.WriteKeyPEM(key, ca.Key); err != nil {
		return nil, field.Errorf("PKIDir", dir, "%v", err)
	}
	if err := pki.WriteCertsPEM(cert, ca.Cert); err != nil {
		os.Remove(key)
		return nil, field.Errorf("PKIDir", dir, "%v", err)
	}
	return ca, nil
}

// readCA reads a CA certificate and its key.
func readCA(certPath, keyPath string) (*pki.CA, error) {
	id, err := pki.LoadIdentityPEM(certPath, keyPath)
	if err != nil {
		return nil, field.Errorf("CACert", certPath, "%v", err)
	}
	if !id.Leaf.IsCA {
		return nil, field.Errorf("CACert", certPath, "not a CA certificate (no CA basic constraint): it cannot sign the certificates the proxy mints")
	}
	return &pki.CA{Cert: id.Leaf, Key: id.Key}, nil
}

// issuerChain is what a minted leaf is sent with: nothing under a root CA,
// the CA's certificate and the intermediates above it under an
// intermediate (read from its certificate file, root dropped).
func issuerChain(certPath string) ([][]byte, error) {
	certs, err := pki.LoadCertsPEM(certPath)
	if err != nil {
		return nil, field.Errorf("CACert", certPath, "%v", err)
	}
	var out [][]byte
	for _, c := range certs {
		if c.IsCA && bytes.Equal(c.RawSubject, c.RawIssuer) {
			break
		}
		out = append(out, c.Raw)
	}
	return out, nil
}

// unwrapPath drops the path a *fs.PathError repeats.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}
