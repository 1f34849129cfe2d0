package runner_test

import (
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/runner"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// TestCaseNamesAreUnique expands plans over combinations of the axes'
// lists (several values, one, the default; in either order) and checks
// that no two cases of a plan share a name, and that a case's name
// carries its key type whenever the plan has several. The full product
// is 82,944 plans; a collision needs at most a few axes with several
// values, so a seeded sample of it (every pair and almost surely every
// triple of lists is drawn), each axis's lists beside every other
// axis's longest, and the plans of all longest and all first lists
// catch one as well, in a fraction of the time.
func TestCaseNamesAreUnique(t *testing.T) {
	t.Parallel()
	var (
		versions     = [][]uint16{{tls.VersionTLS12}, {tls.VersionTLS13}, {tls.VersionTLS12, tls.VersionTLS13}}
		resumes      = [][]bool{{false}, {true}, {false, true}}
		concurrences = [][]int{{1}, {64, 1}}
		keys         = [][]pki.KeyType{nil, {pki.ECDSAP256}, {pki.RSA2048}, {pki.ECDSAP256, pki.RSA2048},
			{pki.RSA2048, pki.ECDSAP256}, {pki.Ed25519, pki.ECDSAP384, pki.RSA3072}}
		groups     = [][]tls.CurveID{nil, {tls.X25519}, {tls.X25519MLKEM768, tls.CurveP256}}
		transports = [][]string{nil, {runner.TransportTCP}, {runner.TransportMemory}, {runner.TransportTCP, runner.TransportTCP6, runner.TransportMemory}}
		ciphers    = [][]string{nil, {tlsconf.CipherAES128GCM, tlsconf.CipherChaCha20Poly1305}}
		caches     = [][]bool{nil, {true}, {false}, {true, false}}
		targets    = []string{"", "203.0.113.1:443"}
		identities = [][]server.IdentityFiles{nil, {{Cert: "a.pem", Key: "a-key.pem"}}}
		mutuals    = []bool{false, true}
	)
	// The axes in the order of the radix below; the last list of each
	// is its longest.
	radix := []int{len(versions), len(resumes), len(concurrences), len(keys), len(groups), len(transports),
		len(caches), len(targets), len(identities), len(mutuals), len(ciphers)}
	plan := func(i []int) runner.Plan {
		p := runner.Plan{Versions: versions[i[0]], Resume: resumes[i[1]], Concurrency: concurrences[i[2]], KeyTypes: keys[i[3]],
			Groups: groups[i[4]], Transports: transports[i[5]], KeyCache: caches[i[6]], Target: runner.Target{Addr: targets[i[7]]},
			Mutual: mutuals[i[9]], Ciphers: ciphers[i[10]]}
		p.Server.Identities = identities[i[8]]
		return p
	}
	var picks [][]int
	first, longest := make([]int, len(radix)), make([]int, len(radix))
	for a, n := range radix {
		longest[a] = n - 1
	}
	picks = append(picks, first, longest)
	for a, n := range radix {
		for v := range n {
			i := slices.Clone(longest)
			i[a] = v
			picks = append(picks, i)
		}
	}
	rng := rand.New(rand.NewPCG(27, 1))
	for range 3000 {
		i := make([]int, len(radix))
		for a, n := range radix {
			i[a] = rng.IntN(n)
		}
		picks = append(picks, i)
	}
	for _, i := range picks {
		p := plan(i)
		checkNames(t, &p)
	}
}

func checkNames(t *testing.T, p *runner.Plan) {
	t.Helper()
	seen := map[string]runner.Case{}
	for _, c := range p.Cases() {
		if other, dup := seen[c.Name]; dup {
			t.Fatalf("plan %s: cases %+v and %+v are both named %s", describe(p), other, c, c.Name)
		}
		seen[c.Name] = c
		if len(p.KeyTypes) > 1 && p.Target.Addr == "" && !strings.Contains(c.Name, "/"+string(c.KeyType)+"/") {
			t.Fatalf("plan %s: case %s does not name its key type %s", describe(p), c.Name, c.KeyType)
		}
	}
}

func describe(p *runner.Plan) string {
	return fmt.Sprintf("tls %v resume %v c %v keys %v groups %v ciphers %v transports %v key-cache %v mutual %v target %q identities %d",
		p.Versions, p.Resume, p.Concurrency, p.KeyTypes, p.Groups, p.Ciphers, p.Transports, p.KeyCache, p.Mutual, p.Target.Addr, len(p.Server.Identities))
}

// TestDefaultCaseNamesAreStable: the default matrix, and a single key
// type, keep the names results files already hold.
func TestDefaultCaseNamesAreStable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		plan runner.Plan
		want []string
	}{
		{runner.Plan{Versions: []uint16{tls.VersionTLS13}, Resume: []bool{false, true}, Concurrency: []int{1, 64}},
			[]string{"handshake/tls1.3/full/c1", "handshake/tls1.3/full/c64", "handshake/tls1.3/resume/c1", "handshake/tls1.3/resume/c64"}},
		{runner.Plan{Versions: []uint16{tls.VersionTLS13}, Resume: []bool{false}, Concurrency: []int{8}, KeyTypes: []pki.KeyType{pki.ECDSAP256}},
			[]string{"handshake/tls1.3/full/c8"}},
		{runner.Plan{Versions: []uint16{tls.VersionTLS12}, Resume: []bool{true}, Concurrency: []int{8}, KeyTypes: []pki.KeyType{pki.RSA2048},
			Groups: []tls.CurveID{tls.X25519}, Transports: []string{runner.TransportMemory}},
			[]string{"handshake/tls1.2/resume/rsa-2048/x25519/memory/c8"}},
		// Several key types: each case names its own, the default one too.
		{runner.Plan{Versions: []uint16{tls.VersionTLS13}, Resume: []bool{false}, Concurrency: []int{1}, KeyTypes: []pki.KeyType{pki.ECDSAP256, pki.RSA2048}},
			[]string{"handshake/tls1.3/full/ecdsa-p256/c1", "handshake/tls1.3/full/rsa-2048/c1"}},
		{runner.Plan{Versions: []uint16{tls.VersionTLS13}, Resume: []bool{true}, Concurrency: []int{1}, Mutual: true,
			KeyTypes: []pki.KeyType{pki.RSA2048, pki.ECDSAP256}, KeyCache: []bool{true, false}},
			[]string{"handshake/tls1.3/resume/mutual/rsa-2048/keycache-on/c1", "handshake/tls1.3/resume/mutual/rsa-2048/keycache-off/c1",
				"handshake/tls1.3/resume/mutual/ecdsa-p256/keycache-on/c1", "handshake/tls1.3/resume/mutual/ecdsa-p256/keycache-off/c1"}},
	}
	for _, tt := range tests {
		var got []string
		for _, c := range tt.plan.Cases() {
			got = append(got, c.Name)
		}
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("plan %s:\n got %v\nwant %v", describe(&tt.plan), got, tt.want)
		}
	}
}

// TestValidateRefusesDuplicates: a value listed twice would run one case
// twice under one name.
func TestValidateRefusesDuplicates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mutate func(*runner.Plan)
		want   string
	}{
		{func(p *runner.Plan) { p.Versions = []uint16{tls.VersionTLS13, tls.VersionTLS13} }, "tls: 1.3 is given twice"},
		{func(p *runner.Plan) { p.Resume = []bool{true, false, true} }, "resume: on is given twice"},
		{func(p *runner.Plan) { p.Concurrency = []int{8, 1, 8} }, "concurrency: 8 is given twice"},
		{func(p *runner.Plan) { p.KeyTypes = []pki.KeyType{pki.RSA2048, pki.RSA2048} }, "key: rsa-2048 is given twice"},
		{func(p *runner.Plan) { p.Groups = []tls.CurveID{tls.X25519, tls.X25519} }, "groups: x25519 is given twice"},
		{func(p *runner.Plan) { p.Transports = []string{"tcp", "tcp"} }, "transport: tcp4 is given twice"},
		{func(p *runner.Plan) { p.KeyCache = []bool{false, false} }, "key-cache: off is given twice"},
	}
	for _, tt := range tests {
		p := runner.Plan{Versions: []uint16{tls.VersionTLS13}, Resume: []bool{false}, Concurrency: []int{1}, Handshakes: 1, Iterations: 1}
		tt.mutate(&p)
		err := p.Validate()
		var fe *plan.Error
		if !errors.As(err, &fe) || err.Error() != tt.want {
			t.Errorf("error %v, want the field error %q", err, tt.want)
		}
	}
}
