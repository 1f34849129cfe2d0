package proxy_test

import (
	"crypto/tls"
	"io"
	"net"
	"testing"

	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/proxy"
)

// BenchmarkRelay measures the user-space relay in this process: an
// origin sends, through the proxy (16 KiB buffer), to a client that
// reads; MB/s is the payload rate. Client, proxy and origin share the
// process and its CPUs: the proxy's own CPU per byte is what tlsbench
// run --proxy builtin measures, with the proxy in a process of its own.
func BenchmarkRelay(b *testing.B) {
	for _, fill := range []bool{false, true} {
		name := "16k"
		if fill {
			name += "-fill"
		}
		b.Run(name, func(b *testing.B) { benchRelay(b, 16<<10, fill) })
	}
}

func benchRelay(b *testing.B, buffer int, fill bool) {
	const chunk = 1 << 20
	cfg, ca := testpki.Server(b)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		data := make([]byte, chunk)
		for range b.N {
			if _, err := c.Write(data); err != nil {
				return
			}
		}
		c.(*tls.Conn).CloseWrite()
		io.Copy(io.Discard, c)
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	org := origin{port: port, ca: ca}
	org.caFile = servertest.WriteCA(b, ca)
	p := startProxy(b, org, proxy.Options{Buffer: buffer, ReadFill: fill, MintCache: true})
	tc := p.tunnel(b, org, nil)
	b.SetBytes(chunk)
	b.ResetTimer()
	n, err := io.Copy(io.Discard, tc)
	b.StopTimer()
	if err != nil || n != int64(b.N)*chunk {
		b.Fatalf("relayed %d bytes (%v), want %d", n, err, int64(b.N)*chunk)
	}
	tc.Close()
}
