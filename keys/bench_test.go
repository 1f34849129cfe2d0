package keys

import (
	"crypto/tls"
	"io"
	"net"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/memconn"
	"github.com/tlsbench/tlsbench/pki"
)

// BenchmarkGetCertificate measures selection alone, for a ClientHello a
// crypto/tls client really sent (it carries signature_algorithms_cert, so
// the raw message is parsed every time).
//
//	go test -run '^$' -bench GetCertificate ./keys
func BenchmarkGetCertificate(b *testing.B) {
	p := newTestPKI(b)
	raw, info := captureHello(b, &tls.Config{ServerName: "localhost"})
	rec := &helloConn{msg: raw}
	rec.done.Store(true)
	info.Conn = rec
	for _, bc := range []struct {
		name string
		ids  []string
	}{
		{"1-identity", []string{idECDSA}},
		{"4-identities", []string{idRSA, idEd25519, idECDSA, idOther}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			m := mustNew(b, p.sources(bc.ids...))
			b.ReportAllocs()
			for b.Loop() {
				if c, err := m.GetCertificate(&info); err != nil || c == refusal {
					b.Fatal("no certificate")
				}
			}
		})
	}
}

// BenchmarkSelectionOverhead compares full TLS 1.3 handshakes (ECDSA
// P-256, both ends in this process over a buffered in-memory pipe) whose
// server has one fixed certificate with handshakes whose server's
// manager chooses among four identities, over connections wrapped with
// RecordClientHello. Each iteration runs one handshake of each kind
// back to back (alternating which goes first), so that a pair sees the
// same machine state; medians, of the times and of the pairs' ratios,
// keep the other load of a shared machine out of the figure.
//
//	go test -run '^$' -bench SelectionOverhead -count 5 ./keys
func BenchmarkSelectionOverhead(b *testing.B) {
	p := newTestPKI(b)
	m := mustNew(b, p.sources(idRSA, idEd25519, idECDSA, idOther))
	fixed := &tls.Config{Certificates: []tls.Certificate{p.ids[idECDSA].TLSCertificate()}}
	managed := &tls.Config{GetCertificate: m.GetCertificate}
	client := &tls.Config{ServerName: "localhost", RootCAs: p.pool, MinVersion: tls.VersionTLS13}
	var tFixed, tManaged, ratio []float64
	odd := false
	for b.Loop() {
		var f, g time.Duration
		if odd = !odd; odd {
			f = benchHandshake(b, fixed, client, false)
			g = benchHandshake(b, managed, client, true)
		} else {
			g = benchHandshake(b, managed, client, true)
			f = benchHandshake(b, fixed, client, false)
		}
		tFixed = append(tFixed, float64(f))
		tManaged = append(tManaged, float64(g))
		ratio = append(ratio, float64(g)/float64(f))
	}
	b.ReportMetric(median(tFixed), "fixed-ns/hs")
	b.ReportMetric(median(tManaged), "manager-ns/hs")
	b.ReportMetric(100*(median(ratio)-1), "%overhead")
	if s := m.Stats(); s.Selected[p.src[idECDSA].String()] == 0 {
		b.Fatalf("manager never chose ECDSA: %+v", s)
	}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	return v[len(v)/2]
}

// BenchmarkKeyCache measures what issue 4 is about: full TLS 1.3
// handshakes with the server's key in a PKCS#12 file (2048 PBKDF2
// iterations, as OpenSSL writes them) decrypted once (on) or on every
// handshake (off).
//
//	go test -run '^$' -bench KeyCache -count 5 ./keys
func BenchmarkKeyCache(b *testing.B) {
	p := newTestPKI(b)
	dir := b.TempDir()
	pw := writePassword(b, dir, "s3cret")
	src := Source{P12File: filepath.Join(dir, "server.p12")}
	if err := pki.WritePKCS12(src.P12File, p.ids[idECDSA], "s3cret", pki.DefaultP12Iterations); err != nil {
		b.Fatal(err)
	}
	client := &tls.Config{ServerName: "localhost", RootCAs: p.pool, MinVersion: tls.VersionTLS13}
	for _, cache := range []bool{true, false} {
		b.Run(map[bool]string{true: "on", false: "off"}[cache], func(b *testing.B) {
			m := mustNew(b, []Source{src}, WithKeyCache(cache), WithP12Password(pw))
			server := &tls.Config{GetCertificate: m.GetCertificate}
			var times []float64
			for b.Loop() {
				times = append(times, float64(benchHandshake(b, server, client, true)))
			}
			b.ReportMetric(median(times), "median-ns/hs")
			b.ReportMetric(float64(m.Stats().Decryptions-1)/float64(b.N), "decryptions/hs")
		})
	}
}

// benchHandshake runs one full handshake over a buffered in-memory pipe
// and returns how long it took, both ends together.
func benchHandshake(b *testing.B, server, client *tls.Config, record bool) time.Duration {
	sc, cc := memconn.Pipe()
	var s net.Conn = sc
	if record {
		s = RecordClientHello(sc)
	}
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		st := tls.Server(s, server)
		err := st.Handshake()
		if err == nil {
			_, err = st.Write([]byte{1})
		}
		done <- err
	}()
	ct := tls.Client(cc, client)
	err := ct.Handshake()
	if err == nil {
		var one [1]byte
		_, err = io.ReadFull(ct, one[:])
	}
	if serr := <-done; err == nil {
		err = serr
	}
	d := time.Since(start)
	sc.Close()
	cc.Close()
	if err != nil {
		b.Fatal(err)
	}
	return d
}
