package runner

import (
	"crypto/tls"
	"fmt"
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// Transports a case can run over.
const (
	TransportTCP    = "tcp"
	TransportMemory = "memory"
)

// DefaultKeyType is the server key type when the plan names none.
const DefaultKeyType = pki.ECDSAP256

// Plan is what a run measures. The matrix is the cross product of
// Versions x Resume x Concurrency x KeyTypes x Groups x Transports.
type Plan struct {
	Versions    []uint16
	Resume      []bool
	Concurrency []int
	KeyTypes    []pki.KeyType
	// Groups are the key-exchange groups, one case each; a zero entry
	// (or an empty list) offers Go's default groups.
	Groups     []tls.CurveID
	Transports []string

	// Per case.
	Handshakes    int
	Iterations    int
	Warmup        int
	CaseTime      time.Duration // measured time limit per case (0: none)
	MinResumption float64
	ConnTimeout   time.Duration

	// Executable runs the child server (default: this program); its
	// arguments are ChildArgs (default ["serve"]).
	Executable string
	ChildArgs  []string
	ChildEnv   []string

	// Env is recorded in every result (default results.CurrentEnv()).
	Env *results.Env
	// Progress receives every finished iteration, and Notice one-line
	// remarks for the user (a server started, a case skipped).
	Progress func(CaseProgress)
	Notice   func(string)
}

// CaseProgress reports progress within a run.
type CaseProgress struct {
	Index, Total int // 1-based case index
	loadgen.Progress
}

// Case is one cell of the matrix.
type Case struct {
	Name        string
	Version     uint16
	Resume      bool
	Concurrency int
	KeyType     pki.KeyType
	Group       tls.CurveID // 0: Go's defaults
	Transport   string
}

// Validate checks the plan before any work is done. Errors name the
// option at fault as the CLI spells it.
func (p *Plan) Validate() error {
	if len(p.Versions) == 0 {
		return fmt.Errorf("--tls: no TLS version given")
	}
	if len(p.Resume) == 0 {
		return fmt.Errorf("--resume: give off, on or both")
	}
	if len(p.Concurrency) == 0 {
		return fmt.Errorf("--concurrency: no level given")
	}
	for _, c := range p.Concurrency {
		if c < 1 || c > 4096 {
			return fmt.Errorf("--concurrency %d: must be between 1 and 4096", c)
		}
	}
	if p.Handshakes < 1 {
		return fmt.Errorf("--handshakes %d: must be at least 1", p.Handshakes)
	}
	if p.Iterations < 1 {
		return fmt.Errorf("--iterations %d: must be at least 1", p.Iterations)
	}
	if p.Warmup < 0 {
		return fmt.Errorf("--warmup %d: must be 0 or more", p.Warmup)
	}
	if p.MinResumption < 0 || p.MinResumption > 1 {
		return fmt.Errorf("--min-resumption %g: must be between 0 and 1", p.MinResumption)
	}
	for _, t := range p.Transports {
		if t != TransportTCP && t != TransportMemory {
			return fmt.Errorf("--transport %q: must be tcp or memory", t)
		}
	}
	for _, g := range p.Groups {
		if g == 0 {
			continue
		}
		for _, v := range p.Versions {
			if v < tls.VersionTLS13 && isTLS13OnlyGroup(g) {
				return fmt.Errorf("--groups %s: a TLS 1.3-only group cannot be used with --tls 1.2; run them separately", tlsconf.GroupName(g))
			}
		}
	}
	return nil
}

// isTLS13OnlyGroup reports post-quantum hybrids, which TLS 1.2 cannot
// negotiate.
func isTLS13OnlyGroup(g tls.CurveID) bool {
	switch g {
	case tls.X25519MLKEM768, tls.SecP256r1MLKEM768, tls.SecP384r1MLKEM1024:
		return true
	}
	return false
}

func orDefault[T any](v []T, def T) []T {
	if len(v) == 0 {
		return []T{def}
	}
	return v
}

// Cases expands the matrix in the order it runs: grouped by server
// (key type, transport), then version, resumption and concurrency.
func (p *Plan) Cases() []Case {
	keys := orDefault(p.KeyTypes, DefaultKeyType)
	groups := orDefault(p.Groups, 0)
	transports := orDefault(p.Transports, TransportTCP)
	var out []Case
	for _, k := range keys {
		for _, t := range transports {
			for _, v := range p.Versions {
				for _, g := range groups {
					for _, r := range p.Resume {
						for _, c := range p.Concurrency {
							cs := Case{Version: v, Resume: r, Concurrency: c, KeyType: k, Group: g, Transport: t}
							cs.Name = cs.name()
							out = append(out, cs)
						}
					}
				}
			}
		}
	}
	return out
}

// name is the case's stable name: handshake/tls1.3/resume/c64, with
// segments for every dimension that is not at its default, e.g.
// handshake/tls1.2/full/rsa-2048/x25519/memory/c8.
func (c Case) name() string {
	parts := []string{"handshake", "tls" + tlsconf.VersionName(c.Version)}
	if c.Resume {
		parts = append(parts, "resume")
	} else {
		parts = append(parts, "full")
	}
	if c.KeyType != DefaultKeyType {
		parts = append(parts, string(c.KeyType))
	}
	if c.Group != 0 {
		parts = append(parts, tlsconf.GroupName(c.Group))
	}
	if c.Transport == TransportMemory {
		parts = append(parts, TransportMemory)
	}
	parts = append(parts, fmt.Sprintf("c%d", c.Concurrency))
	return strings.Join(parts, "/")
}
