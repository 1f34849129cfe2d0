package cli_test

import (
	"path/filepath"
	"testing"

	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/pki"
)

// TestRunTargetRecordsServerKeyType: against an external server the
// record's key_type is the key of the certificate the server presented
// (what a full handshake's signature costs), seen on every handshake,
// resumed ones included: openssl s_server with an RSA and with an ECDSA
// P-384 key.
func TestRunTargetRecordsServerKeyType(t *testing.T) {
	t.Parallel()
	for _, kt := range []pki.KeyType{pki.RSA2048, pki.ECDSAP384} {
		t.Run(string(kt), func(t *testing.T) {
			t.Parallel()
			ca := testpki.CA(t)
			id, err := ca.IssueServer(nil, pki.WithKeyType(kt))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			cert, key := testpki.WritePEM(t, dir, "server", id)
			caFile := filepath.Join(dir, "ca.pem")
			if err := pki.WriteCertsPEM(caFile, ca.Root()); err != nil {
				t.Fatal(err)
			}
			s := peers.OpenSSL(t, "-cert", cert, "-key", key, "-www")
			msg, recs, err := runTarget(t, s.Addr, caFile, "--tls", "1.2,1.3", "--resume", "off,on",
				"--concurrency", "1", "--handshakes", "8", "--warmup", "1", "--iterations", "2", "--max-error-rate", "100%")
			if err != nil {
				t.Fatalf("run: %s", msg)
			}
			if len(recs) != 4 {
				t.Fatalf("%d records, want 4", len(recs))
			}
			for _, r := range recs {
				if r.KeyType != string(kt) || r.Params["key_type"] != "" {
					t.Errorf("%s: key_type %q (params %q), want the server's %s, and no key type asked for", r.Name, r.KeyType, r.Params["key_type"], kt)
				}
			}
		})
	}
}
