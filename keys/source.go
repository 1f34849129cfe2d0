package keys

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tlsbench/tlsbench/internal/field"
)

// Source names one identity on disk: a PEM certificate chain (leaf first)
// and its PEM private key, or a PKCS#12 file.
type Source struct {
	CertFile string // PEM chain, leaf first; may also hold the key
	KeyFile  string // PEM private key; may be CertFile
	P12File  string // PKCS#12 file; CertFile and KeyFile are then empty
}

// ParseSource parses the --identity syntax: "CERT.pem,KEY.pem" for a PEM
// pair, "FILE.p12" (or .pfx) for PKCS#12, or one PEM file holding both the
// chain and the key.
func ParseSource(s string) (Source, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Source{}, errors.New("empty identity; give CERT.pem,KEY.pem or FILE.p12")
	}
	if cert, key, ok := strings.Cut(s, ","); ok {
		cert, key = strings.TrimSpace(cert), strings.TrimSpace(key)
		if cert == "" || key == "" || strings.Contains(key, ",") {
			return Source{}, fmt.Errorf("identity %q: want CERT.pem,KEY.pem (two files) or FILE.p12", s)
		}
		return Source{CertFile: cert, KeyFile: key}, nil
	}
	switch strings.ToLower(filepath.Ext(s)) {
	case ".p12", ".pfx":
		return Source{P12File: s}, nil
	}
	return Source{CertFile: s, KeyFile: s}, nil
}

// String returns the source in ParseSource's syntax.
func (s Source) String() string {
	switch {
	case s.P12File != "":
		return s.P12File
	case s.CertFile == s.KeyFile:
		return s.CertFile
	}
	return s.CertFile + "," + s.KeyFile
}

// file is the file a Violation about the certificates names.
func (s Source) file() string {
	if s.P12File != "" {
		return s.P12File
	}
	return s.CertFile
}

// PasswordEnv is the environment variable a PKCS#12 password is read from
// when no password file is given.
const PasswordEnv = "TLSBENCH_P12_PASSWORD"

// A Password says where a PKCS#12 password comes from: a file or an
// environment variable. There is deliberately no way to give the password
// itself: command-line values end up in shell history and in every
// process listing (/proc/PID/cmdline is world-readable).
type Password struct {
	file, env string
}

// PasswordFile reads the password from the first line of path, as
// `openssl -passin file:PATH` does; the line ending is not part of it.
func PasswordFile(path string) Password { return Password{file: path} }

// PasswordFromEnv reads the password from the environment variable name.
func PasswordFromEnv(name string) Password { return Password{env: name} }

// IsZero reports whether p names no source.
func (p Password) IsZero() bool { return p.file == "" && p.env == "" }

// String describes where the password comes from, never the password.
func (p Password) String() string {
	switch {
	case p.file != "":
		return "password file " + p.file
	case p.env != "":
		return "environment variable " + p.env
	}
	return "no password"
}

// Read returns the password. Errors name the file or variable, never
// the password.
func (p Password) Read() (string, error) {
	switch {
	case p.file != "":
		data, err := os.ReadFile(p.file)
		if err != nil {
			return "", fmt.Errorf("read PKCS#12 password: %w", err)
		}
		line, _, _ := bytes.Cut(data, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			return "", fmt.Errorf("password file %s: first line is empty; write the password on it", p.file)
		}
		return string(line), nil
	case p.env != "":
		v, ok := os.LookupEnv(p.env)
		if !ok || v == "" {
			return "", field.Errorf("", nil, "environment variable %s is not set; set it to the PKCS#12 password or give a password file (%s FILE)", p.env, field.Ref("P12PasswordFile"))
		}
		return v, nil
	}
	return "", field.Errorf("", nil, "no password given; give a password file (%s FILE) or set %s", field.Ref("P12PasswordFile"), PasswordEnv)
}
