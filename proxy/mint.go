package proxy

import (
	"container/list"
	"crypto"
	"crypto/tls"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tlsbench/tlsbench/pki"
)

// minter signs leaf certificates for the hosts clients ask for. There is
// one leaf key per proxy: generating a key per host would cost more than
// the signature (an RSA key far more), and what a bump proxy pays per
// host is the signature. Minted certificates are kept in a bounded LRU
// cache; concurrent requests for one host wait for one mint.
type minter struct {
	ca    *pki.CA
	chain [][]byte // sent after the leaf: the CA's intermediates, if any
	key   crypto.Signer
	cache bool
	size  int

	mu      sync.Mutex
	entries map[string]*mintEntry
	lru     *list.List // of *mintEntry, most recent first; done entries only

	mints, hits, misses atomic.Int64
}

// mintEntry is one host's certificate, or the mint in progress.
type mintEntry struct {
	host  string
	ready chan struct{} // closed when cert or err is set
	cert  *tls.Certificate
	err   error
	elem  *list.Element // in the LRU once minted
	renew time.Time     // when it is minted anew rather than served (renewAt)
}

func newMinter(ca *pki.CA, chain [][]byte, leafKey string, cache bool, size int) (*minter, error) {
	kt := pki.ECDSAP256
	if leafKey == LeafRSA2048 {
		kt = pki.RSA2048
	}
	key, err := kt.Generate()
	if err != nil {
		return nil, fmt.Errorf("leaf key: %w", err)
	}
	return &minter{ca: ca, chain: chain, key: key, cache: cache, size: size, entries: map[string]*mintEntry{}, lru: list.New()}, nil
}

// get returns the certificate for host, minting it if need be.
func (m *minter) get(host string) (*tls.Certificate, error) {
	if !m.cache {
		m.misses.Add(1)
		return m.mint(host, time.Now())
	}
	m.mu.Lock()
	if e, ok := m.entries[host]; ok && e.elem != nil && !time.Now().Before(e.renew) {
		// Near its end: minted anew, as if never kept.
		m.lru.Remove(e.elem)
		delete(m.entries, host)
	}
	if e, ok := m.entries[host]; ok {
		if e.elem != nil {
			m.lru.MoveToFront(e.elem)
			m.mu.Unlock()
			m.hits.Add(1)
			return e.cert, nil
		}
		// Being minted: wait for that mint rather than sign twice.
		m.mu.Unlock()
		m.misses.Add(1)
		<-e.ready
		return e.cert, e.err
	}
	e := &mintEntry{host: host, ready: make(chan struct{})}
	m.entries[host] = e
	m.mu.Unlock()
	m.misses.Add(1)

	now := time.Now()
	e.cert, e.err = m.mint(host, now)
	m.mu.Lock()
	if e.err != nil {
		delete(m.entries, host) // the next request tries again
	} else {
		e.renew = renewAt(e.cert.Leaf.NotAfter, now)
		e.elem = m.lru.PushFront(e)
		for m.lru.Len() > m.size {
			old := m.lru.Remove(m.lru.Back()).(*mintEntry)
			delete(m.entries, old.host)
		}
	}
	m.mu.Unlock()
	close(e.ready)
	return e.cert, e.err
}

// renewAt is when a certificate minted at minted and ending at end is
// minted anew rather than served from the cache: a day before its end
// (leafRenewal), or halfway through its life when its CA cut it shorter
// than two days. A fixed day would renew a certificate that lives less
// than that at every handshake, as if there were no cache.
func renewAt(end, minted time.Time) time.Time {
	// A certificate already ended (its CA ended while the proxy ran) is
	// renewed at once, but no more than once a minute: a new one would
	// end as early, and signing it at every handshake helps no client.
	if !end.After(minted) {
		return minted.Add(time.Minute)
	}
	return end.Add(-min(leafRenewal, end.Sub(minted)/2))
}

// mint signs a certificate for host, valid from now, with the proxy's
// leaf key: one signature, no key generation.
func (m *minter) mint(host string, now time.Time) (*tls.Certificate, error) {
	// A week, and never past the CA: a client would refuse the chain
	// then anyway.
	ends := now.Add(leafValidity)
	if m.ca.Cert.NotAfter.Before(ends) {
		ends = m.ca.Cert.NotAfter
	}
	id, err := m.ca.IssueServer([]string{host}, pki.WithKey(m.key), pki.WithValidity(now.Add(-time.Hour), ends))
	if err != nil {
		return nil, err
	}
	m.mints.Add(1)
	der := make([][]byte, 0, 1+len(m.chain))
	der = append(der, id.Leaf.Raw)
	der = append(der, m.chain...)
	return &tls.Certificate{Certificate: der, PrivateKey: m.key, Leaf: id.Leaf}, nil
}
