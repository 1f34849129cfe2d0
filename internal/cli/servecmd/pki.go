package servecmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/internal/hostname"
	"github.com/tlsbench/tlsbench/keys"
	"github.com/tlsbench/tlsbench/pki"
)

const pkiUsage = `Usage: tlsbench pki init --dir DIR [flags]

Writes a test PKI to DIR: a root CA certificate (ca.pem), optionally an
intermediate CA, one server identity per --server-keys key type, and
--clients client identities, as PEM files and, with --p12-password-file, as
PKCS#12 files too (PBES2: PBKDF2-HMAC-SHA256 and AES-256-CBC, as OpenSSL 3
writes them). Private keys and PKCS#12 files get mode 0600. The CA keys are
not kept, so the root cannot sign anything else. It prints what it wrote.
Interrupted (Ctrl-C, SIGTERM), it stops at once and removes the files it
had written. --force writes the new PKI into a directory of its own inside
DIR and puts it in place of the old one only once it is whole: an
interrupted --force leaves the old PKI as it was (killed outright, a
.pki-init-new-* directory may be left behind, to remove).

--hosts takes IP addresses and DNS names: labels of 1 to 63 letters,
digits, hyphens and underscores, not starting or ending with a hyphen, at
most 253 characters; a wildcard first label (*.example.test) is allowed.

Examples:
  tlsbench pki init --dir ./pki
  tlsbench pki init --dir ./pki --server-keys ecdsa-p256,rsa-2048,ed25519 --clients 4 --intermediate
  openssl rand -hex 16 > p12.pw
  tlsbench pki init --dir ./pki --p12-password-file p12.pw --force
  openssl verify -CAfile ./pki/ca.pem ./pki/server-ecdsa-p256.pem

Flags:
`

// PKI dispatches the pki subcommands; init is the only one so far.
func PKI(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return command.Usagef("no pki command given; try 'tlsbench pki init --dir DIR' (see 'tlsbench pki --help')")
	}
	switch args[0] {
	case "init":
		return pkiInitCmd(ctx, args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		return pkiInitCmd(ctx, []string{"--help"}, stdout, stderr)
	}
	return command.Usagef("unknown pki command %q; the only one is init (see 'tlsbench pki init --help')", args[0])
}

func pkiInitCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := command.NewUsageFlagSet("pki init", pkiUsage, stdout)
	var (
		dir          = fs.String("dir", "", "`DIR` to write the PKI to (created with mode 0700 if missing)")
		serverKeys   = fs.String("server-keys", string(pki.ECDSAP256), "server key `TYPES`, comma-separated, one identity each: "+command.KeyTypeNames())
		hosts        = strings.Join(pki.DefaultHosts, ",")
		clients      = fs.Int("clients", 0, fmt.Sprintf("`N` client identities for mutual TLS (client-1 ... client-N; at most %d)", pki.MaxClients))
		intermediate = fs.Bool("intermediate", false, "issue the leaves from an intermediate CA, as real deployments do")
		passwordFile = fs.String("p12-password-file", "", "also write PKCS#12 files, encrypted with the password on the first line of `FILE`")
		iterations   = fs.Int("p12-iterations", 0, fmt.Sprintf("`N` PBKDF2 iterations for the PKCS#12 files (default %d, as OpenSSL; at most %d)", pki.DefaultP12Iterations, pki.MaxP12Iterations))
		force        = fs.Bool("force", false, "replace a PKI already in DIR (its files only)")
	)
	fs.Func("hosts", "`HOSTS` the server certificates are for: DNS names or IP addresses, comma-separated (default "+hosts+")", func(s string) error {
		hosts = s
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return err
	}

	// Validate every flag before anything is written.
	if strings.TrimSpace(*dir) == "" {
		return command.Usagef("--dir: missing; name the directory to write the PKI to (e.g. --dir ./pki)")
	}
	kts, err := pki.ParseKeyTypes(*serverKeys)
	if err != nil {
		return command.Usagef("--server-keys: %v", err)
	}
	hostList, err := parseHosts(hosts)
	if err != nil {
		return command.Usagef("--hosts: %v", err)
	}
	if *clients < 0 || *clients > pki.MaxClients {
		return command.Usagef("--clients %d: must be between 0 and %d", *clients, pki.MaxClients)
	}
	opts := pki.InitOptions{
		Dir: *dir, ServerKeys: kts, Hosts: hostList, Clients: *clients,
		Intermediate: *intermediate, Force: *force,
	}
	if fs.IsSet("p12-iterations") {
		if *passwordFile == "" {
			return command.Usagef("--p12-iterations: PKCS#12 files are only written with --p12-password-file FILE")
		}
		if *iterations < 1 || *iterations > pki.MaxP12Iterations {
			return command.Usagef("--p12-iterations %d: must be between 1 and %d (default %d)", *iterations, pki.MaxP12Iterations, pki.DefaultP12Iterations)
		}
		opts.P12Iterations = *iterations
	}
	if *passwordFile != "" {
		// The password comes from a file, never from the command line,
		// where every user of the machine can read it (ps, /proc).
		if opts.P12Password, err = keys.PasswordFile(*passwordFile).Read(); err != nil {
			return command.Usagef("--p12-password-file: %v", err)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	l, err := pki.InitContext(ctx, opts)
	if ctx.Err() != nil && err != nil {
		return &command.InterruptedError{Detail: "the files written so far were removed"}
	}
	var exists *pki.ExistsError
	if errors.As(err, &exists) {
		return command.Usagef("--dir %s: already holds a PKI (%s); use another directory, or replace it with --force",
			*dir, strings.Join(exists.Files, ", "))
	}
	if err != nil {
		// Every flag was checked above, so what is left is the directory:
		// it exists with a PKI (and no --force), or cannot be written.
		return command.Usagef("--dir %s: %v", *dir, strings.TrimPrefix(err.Error(), "pki init: "))
	}
	printLayout(stdout, l, opts)
	return nil
}

// parseHosts splits --hosts. pki.Init checks the names too, but a CLI
// error must name the flag, so the same rule is applied here first: an IP
// address (brackets allowed) or a DNS name, its first label a wildcard
// or not (hostname.Check).
func parseHosts(s string) ([]string, error) {
	var out []string
	for _, h := range strings.Split(s, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if err := hostname.Check(h, hostname.Certificate); err != nil {
			return nil, fmt.Errorf("%w (examples: localhost, 127.0.0.1, ::1, *.example.test)", err)
		}
		out = append(out, h)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no host in %q; give DNS names or IP addresses, e.g. localhost,127.0.0.1", s)
	}
	return out, nil
}

// printLayout lists the files Init wrote, one per line with what it is
// for, in the order a user needs them: trust anchor, servers, clients.
func printLayout(w io.Writer, l *pki.Layout, o pki.InitOptions) {
	type row struct{ path, what string }
	var rows []row
	rows = append(rows, row{l.RootCert, "root CA certificate: what clients trust (-CAfile)"})
	if l.IntermediateCert != "" {
		rows = append(rows, row{l.IntermediateCert, "intermediate CA certificate (also in every chain file)"})
	}
	iters := o.P12Iterations
	if iters == 0 {
		iters = pki.DefaultP12Iterations
	}
	for _, kt := range o.ServerKeys {
		rows = append(rows,
			row{l.ServerCerts[kt], fmt.Sprintf("server chain, %s, for %s", kt, strings.Join(o.Hosts, ", "))},
			row{l.ServerKeys[kt], "server private key, mode 0600"})
		if p := l.ServerP12[kt]; p != "" {
			rows = append(rows, row{p, fmt.Sprintf("server PKCS#12, %d PBKDF2 iterations, mode 0600", iters)})
		}
	}
	for i := range l.ClientCerts {
		rows = append(rows,
			row{l.ClientCerts[i], fmt.Sprintf("client chain, %q", fmt.Sprintf("tlsbench client %d", i+1))},
			row{l.ClientKeys[i], "client private key, mode 0600"})
		if i < len(l.ClientP12) {
			rows = append(rows, row{l.ClientP12[i], fmt.Sprintf("client PKCS#12, %d PBKDF2 iterations, mode 0600", iters)})
		}
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(filepath.Base(r.path)))
	}
	fmt.Fprintf(w, "wrote a test PKI to %s\n", l.Dir)
	for _, r := range rows {
		fmt.Fprintf(w, "  %-*s  %s\n", width, filepath.Base(r.path), r.what)
	}
}
