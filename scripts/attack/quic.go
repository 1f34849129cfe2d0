//go:build linux

package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"math/big"
	"net"
	"strings"
	"sync"
	"time"
)

// garbageInitial is a QUIC v1 Initial that parses (long header, version
// 1, a random 8..20-byte destination connection ID, padded to 1,200
// bytes as clients must) but whose payload is garbage: the server can
// only tell by deriving the Initial keys and failing to open it.
func garbageInitial() []byte {
	n, _ := rand.Int(rand.Reader, big.NewInt(13))
	dcid := make([]byte, 8+int(n.Int64()))
	scid := make([]byte, 8)
	rand.Read(dcid)
	rand.Read(scid)
	p := []byte{0xc3, 0, 0, 0, 1} // long header, Initial, 4-byte packet number; version 1
	p = append(p, byte(len(dcid)))
	p = append(p, dcid...)
	p = append(p, byte(len(scid)))
	p = append(p, scid...)
	p = append(p, 0) // no token
	rest := 1200 - len(p) - 2
	p = append(p, 0x40|byte(rest>>8), byte(rest)) // length, a 2-byte varint
	body := make([]byte, rest)
	rand.Read(body)
	return append(p, body...)
}

// garbageInitials sends rate garbage Initials a second for d from one
// UDP socket, in bursts every 10 ms, and counts what comes back.
func garbageInitials(rate int, d time.Duration) func(context.Context, *config, *target, func()) string {
	return func(ctx context.Context, _ *config, t *target, inEffect func()) string {
		c, err := net.Dial("udp", t.addr)
		if err != nil {
			return "no UDP socket: " + oneLine(err.Error())
		}
		defer c.Close()
		back := watchAnswers(c)
		inEffect()
		sent, start := 0, time.Now()
		burst := rate / 100
		for tick := time.NewTicker(10 * time.Millisecond); time.Since(start) < d && ctx.Err() == nil; <-tick.C {
			for range burst {
				if _, err := c.Write(garbageInitial()); err == nil {
					sent++
				}
			}
		}
		el := time.Since(start).Seconds()
		time.Sleep(200 * time.Millisecond) // the last answers
		return fmt.Sprintf("%d Initials sent in %.1f s (%.0f/s); answered: %s", sent, el, float64(sent)/el, back.String())
	}
}

// answers counts the server's datagrams by packet type: each one it
// sends for garbage is work (and bytes) an attacker got for free.
type answers struct {
	mu     sync.Mutex
	bytes  int
	byType map[string]int
	order  []string
}

func watchAnswers(c net.Conn) *answers {
	a := &answers{byType: map[string]int{}}
	go func() {
		buf := make([]byte, 2048)
		for {
			n, err := c.Read(buf)
			if err != nil {
				return
			}
			a.add(n, packetType(buf[:n]))
		}
	}()
	return a
}

func (a *answers) add(n int, kind string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.byType[kind] == 0 {
		a.order = append(a.order, kind)
	}
	a.byType[kind]++
	a.bytes += n
}

func (a *answers) String() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.order) == 0 {
		return "nothing"
	}
	var parts []string
	for _, k := range a.order {
		parts = append(parts, fmt.Sprintf("%d %s", a.byType[k], k))
	}
	return fmt.Sprintf("%s (%d bytes)", strings.Join(parts, ", "), a.bytes)
}

// packetType names a QUIC packet by its first byte and version.
func packetType(p []byte) string {
	switch {
	case len(p) < 5:
		return "short datagram"
	case p[0]&0x80 == 0:
		return "short-header (stateless reset?)"
	case p[1]|p[2]|p[3]|p[4] == 0:
		return "version negotiation"
	}
	return [...]string{"Initial", "0-RTT", "Handshake", "Retry"}[p[0]>>4&3]
}
