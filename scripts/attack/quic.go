//go:build linux

package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"math/big"
	"net"
	"sync/atomic"
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
		var answers atomic.Int64
		go func() {
			buf := make([]byte, 2048)
			for {
				if _, err := c.Read(buf); err != nil {
					return
				}
				answers.Add(1)
			}
		}()
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
		return fmt.Sprintf("%d Initials sent in %.1f s (%.0f/s), %d datagrams answered", sent, el, float64(sent)/el, answers.Load())
	}
}
