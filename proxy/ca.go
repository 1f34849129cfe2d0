package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

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
		return "", field.Errorf("PKIDir", nil, "no per-user configuration directory (%v): give {PKIDir} DIR", err)
	}
	return filepath.Join(dir, "tlsbench", "proxy"), nil
}

// loadCA returns the signing CA and the path of its certificate: the
// given files, or the CA in PKIDir, written there first if missing.
func loadCA(o Options) (*pki.CA, string, error) {
	if o.CACert != "" {
		ca, err := readCA(o.CACert, o.CAKey)
		return ca, o.CACert, err
	}
	dir := o.PKIDir
	if dir == "" {
		var err error
		if dir, err = DefaultPKIDir(); err != nil {
			return nil, "", err
		}
	}
	cert, key := filepath.Join(dir, CACertFile), filepath.Join(dir, CAKeyFile)
	dest, _ := parseDest(o.AllowDest) // checked by Validate
	_, cerr := os.Stat(cert)
	_, kerr := os.Stat(key)
	switch {
	case cerr == nil && kerr == nil:
		ca, err := readCA(cert, key)
		if err == nil {
			err = checkCovers(ca.Cert, dest, dir)
		}
		return ca, cert, err
	case cerr == nil || kerr == nil:
		return nil, "", field.Errorf("PKIDir", dir, "holds only one of %s and %s; remove it or restore the other", CACertFile, CAKeyFile)
	}
	ca, err := writeCA(dir, cert, key, dest.caConstraints())
	return ca, cert, err
}

// writeCA creates a CA limited to nc and writes it to dir (mode 0700,
// key 0600).
func writeCA(dir, cert, key string, nc caConstraints) (*pki.CA, error) {
	if err := os.MkdirAll(dir, pki.DirMode); err != nil {
		return nil, field.Errorf("PKIDir", dir, "%v", unwrapPath(err))
	}
	ca, err := pki.NewCA(pki.WithCommonName(caName))
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
