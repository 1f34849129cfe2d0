package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	"github.com/tlsbench/tlsbench/bulk"
	"github.com/tlsbench/tlsbench/internal/ktls"
)

// WithKTLS prepares the server to hand connections to Linux kernel TLS
// when a throughput client asks for it: every accepted connection is read
// record-exactly during its handshake (ktls.WrapConn) and handshakes with
// a per-connection clone of the server's tls.Config that logs its secrets
// into that connection alone (ktls.ServerConfig; an existing KeyLogWriter
// still receives every line). Both cost a little on every handshake,
// which is why they are opt-in: a server for the handshake benchmark runs
// without them, exactly as before. A connection that does not switch goes
// back to plain reads and its secrets are wiped at once. The kernel is
// probed here for every version, cipher and direction (ktls.SupportedFor,
// once per process), so that the probes' own sockets are not counted in
// /proc/net/tls_stat during the first measured connection.
func WithKTLS() Option {
	return func(s *Server) {
		if ktls.Supported() == nil {
			for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
				for _, c := range []string{ktls.CipherAES128GCM, ktls.CipherAES256GCM, ktls.CipherChaCha20Poly1305} {
					for _, d := range []ktls.Direction{ktls.TX, ktls.RX, ktls.Both} {
						ktls.SupportedFor(v, c, d)
					}
				}
			}
		}
		s.ktls = true
	}
}

// WithSources lists the files a throughput client may ask for (by 1-based
// index, never by path, so that a client cannot make the server read
// anything else).
func WithSources(paths ...string) Option {
	return func(s *Server) { s.sources = append([]string(nil), paths...) }
}

// KTLSReady reports whether the server was started with WithKTLS.
func (s *Server) KTLSReady() bool { return s.ktls }

// userSpace takes a connection that stays in user-space TLS off the
// record-exact reader and wipes its secrets.
func (s *Server) userSpace(rc *ktls.RecordConn) {
	if rc != nil {
		rc.Passthrough()
	}
}

// MaxBulkBuffer is the largest application read/write size a throughput
// client may ask of the server (bulk.MaxBuffer), for callers that
// validate a buffer before starting a server.
const MaxBulkBuffer = bulk.MaxBuffer

// serveBulk runs the throughput protocol (package bulk) on a connection
// whose first application bytes, already read, are first: setup, ack,
// then rounds until the client's close_notify.
func (s *Server) serveBulk(ctx context.Context, tc *tls.Conn, rc *ktls.RecordConn, first []byte) {
	log := s.log.With("remote", tc.RemoteAddr())
	setup, ok := s.readSetup(tc, rc, first, log)
	if !ok {
		return
	}
	ack, file, refusal := s.bulkSource(setup)
	if refusal != "" {
		s.refuseBulk(tc, rc, refusal, log)
		return
	}
	conn, kc, ok := s.bulkKTLS(tc, rc, setup, &ack, log)
	if !ok {
		return
	}
	ack.Sendfile = file != "" && ack.KTLSTX
	defer conn.Close() // close_notify from whichever end writes records
	if _, err := conn.Write(ack.Marshal()); err != nil {
		return
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()
	b := &bulkConn{s: s, ctx: ctx, conn: conn, kc: kc, setup: setup, file: file, size: ack.SourceSize, buf: make([]byte, setup.Buffer)}
	b.serveRounds(log)
}

// refuseBulk answers a setup the server will not run with its reason, in
// user space.
func (s *Server) refuseBulk(tc *tls.Conn, rc *ktls.RecordConn, msg string, log *slog.Logger) {
	s.userSpace(rc)
	tc.Write(bulk.Ack{Status: bulk.Refused, Message: msg}.Marshal())
	log.Debug("throughput setup refused", "reason", msg)
}

// readSetup completes and parses the client's setup; ok is false when the
// connection is done (refused or gone).
func (s *Server) readSetup(tc *tls.Conn, rc *ktls.RecordConn, first []byte, log *slog.Logger) (bulk.Setup, bool) {
	if len(first) > bulk.SetupLen {
		s.refuseBulk(tc, rc, "the client sent data after its setup without waiting for the ack", log)
		return bulk.Setup{}, false
	}
	hdr := make([]byte, bulk.SetupLen)
	n := copy(hdr, first)
	tc.SetReadDeadline(time.Now().Add(s.idleTimeout))
	if _, err := io.ReadFull(tc, hdr[n:]); err != nil {
		s.userSpace(rc)
		return bulk.Setup{}, false
	}
	setup, err := bulk.ParseSetup(hdr)
	if err != nil {
		s.refuseBulk(tc, rc, err.Error(), log)
		return bulk.Setup{}, false
	}
	return setup, true
}

// bulkSource resolves the setup's file source (none for the generated
// stream): the ack so far, the file's path, or why it is refused.
func (s *Server) bulkSource(setup bulk.Setup) (ack bulk.Ack, file, refusal string) {
	if setup.Source == 0 {
		return ack, "", ""
	}
	if setup.Source > len(s.sources) {
		return ack, "", fmt.Sprintf("file source %d: the server has %d", setup.Source, len(s.sources))
	}
	file = s.sources[setup.Source-1]
	fi, err := os.Stat(file)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
		return ack, "", fmt.Sprintf("file source %s: not a non-empty regular file (%v)", file, err)
	}
	ack.SourceSize = fi.Size()
	return ack, file, ""
}

// bulkKTLS hands the directions the setup asks for to the kernel when it
// can, recording in ack what is in effect or why not. It returns the
// connection the data goes through (kc when kTLS is on); ok is false
// when the switch broke the connection.
func (s *Server) bulkKTLS(tc *tls.Conn, rc *ktls.RecordConn, setup bulk.Setup, ack *bulk.Ack, log *slog.Logger) (net.Conn, *ktls.Conn, bool) {
	var dir ktls.Direction
	if setup.KTLSTX {
		dir |= ktls.TX
	}
	if setup.KTLSRX {
		dir |= ktls.RX
	}
	switch {
	case dir == 0:
		s.userSpace(rc)
		return tc, nil, true
	case !s.ktls || rc == nil:
		s.userSpace(rc)
		ack.Message = "server: user-space TLS: the server was started without kernel TLS"
		return tc, nil, true
	}
	kc, err := ktls.Enable(tc, rc, dir, ktls.WithRxExpectNoPad())
	switch {
	case errors.Is(err, ktls.ErrConnBroken):
		log.Warn("kTLS switch broke the connection", "err", err)
		return nil, nil, false
	case err != nil:
		// Enable left tc working in user space.
		ack.Message = "server: user-space TLS: " + err.Error()
		return tc, nil, true
	}
	if err := kc.Verify(); err != nil {
		log.Warn("kTLS not in effect after Enable", "err", err)
		kc.Close()
		return nil, nil, false
	}
	st := kc.State()
	ack.KTLSTX, ack.KTLSRX = st.TX, st.RX
	return kc, kc, true
}

// serveRounds answers rounds until the client ends the connection, a
// round fails or ctx ends.
func (b *bulkConn) serveRounds(log *slog.Logger) {
	for b.ctx.Err() == nil {
		b.conn.SetDeadline(time.Now().Add(b.s.idleTimeout))
		var rh [bulk.RoundLen]byte
		if _, err := io.ReadFull(b.conn, rh[:]); err != nil {
			// io.EOF is the client's close_notify between rounds: the
			// normal end.
			if !errors.Is(err, io.EOF) {
				log.Debug("throughput connection ended", "err", err)
			}
			return
		}
		v := b.answer(rh[:])
		if _, err := b.conn.Write(v.Marshal()); err != nil || v.Status != bulk.OK {
			if v.Status != bulk.OK {
				log.Warn("throughput round failed", "status", v.Status, "msg", v.Message)
			}
			return
		}
	}
}

// answer runs the round in rh, when the server accepts it, and returns
// its verdict.
func (b *bulkConn) answer(rh []byte) bulk.Verdict {
	round, err := bulk.ParseRound(rh)
	switch {
	case err != nil:
		return bulk.Verdict{Status: bulk.Refused, Message: err.Error()}
	case b.file != "" && round.Directions != bulk.Download:
		return bulk.Verdict{Status: bulk.Refused, Message: "a file source can only be downloaded"}
	case b.file != "" && round.Bytes%b.size != 0:
		return bulk.Verdict{Status: bulk.Refused, Message: fmt.Sprintf("a file source is sent in whole passes: %d bytes is not a multiple of its %d", round.Bytes, b.size)}
	}
	return b.round(round)
}

// bulkConn is the server's end of one throughput connection.
type bulkConn struct {
	s     *Server
	ctx   context.Context
	conn  net.Conn   // kc when kTLS is on, else the *tls.Conn
	kc    *ktls.Conn // nil in user space
	setup bulk.Setup
	file  string
	size  int64
	buf   []byte // receive buffer
}

// round moves one round's data and says how it went.
func (b *bulkConn) round(r bulk.Round) bulk.Verdict {
	var wg sync.WaitGroup
	var sendErr error
	if r.Directions&bulk.Download != 0 {
		wg.Go(func() {
			g := &bulk.StallGuard{Conn: b.conn, Timeout: b.s.idleTimeout, Ctx: b.ctx}
			if b.file != "" {
				sendErr = b.sendFile(r.Bytes, g)
			} else {
				sendErr = bulk.SendPattern(b.conn, r.Bytes, r.DownloadPhase, b.setup.Buffer, g)
			}
		})
	}
	var v bulk.Verdict
	if r.Directions&bulk.Upload != 0 {
		g := &bulk.StallGuard{Conn: b.conn, Timeout: b.s.idleTimeout, Ctx: b.ctx}
		got, err := bulk.Receive(b.conn, r.Bytes, b.buf, bulk.NewPatternVerifier(r.UploadPhase), true, g)
		v.Received = got
		var ie *bulk.IntegrityError
		switch {
		case errors.As(err, &ie):
			v.Status, v.Message = bulk.Integrity, err.Error()
		case err != nil:
			v.Status, v.Message = bulk.Failed, "server: "+err.Error()
		}
	}
	wg.Wait()
	if sendErr != nil && v.Status == bulk.OK {
		v.Status, v.Message = bulk.Failed, "server: "+sendErr.Error()
	}
	return v
}

// sendFile sends the file source whole, n/size times: with sendfile(2)
// when the kernel encrypts (ktls.Conn.ReadFrom), otherwise with reads of
// the case's buffer size, as a user-space server would.
func (b *bulkConn) sendFile(n int64, g *bulk.StallGuard) error {
	f, err := os.Open(b.file)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, b.setup.Buffer)
	for pass := int64(0); pass < n/b.size; pass++ {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if b.kc != nil && b.kc.State().TX {
			// No chunk boundaries to tick on: allow the pass at least
			// 1 MiB/s on top of the stall timeout.
			b.conn.SetDeadline(time.Now().Add(b.s.idleTimeout + time.Duration(b.size>>20)*time.Second))
			m, err := b.kc.ReadFrom(&io.LimitedReader{R: f, N: b.size})
			if err == nil && m != b.size {
				err = fmt.Errorf("file changed: sent %d of %d bytes", m, b.size)
			}
			if err != nil {
				return fmt.Errorf("sendfile %s: %w", b.file, err)
			}
			continue
		}
		for left := b.size; left > 0; {
			m := int(min(int64(len(buf)), left))
			if _, err := io.ReadFull(f, buf[:m]); err != nil {
				return fmt.Errorf("reading %s: %w", b.file, err)
			}
			if _, err := b.conn.Write(buf[:m]); err != nil {
				return fmt.Errorf("bulk: write: %w", err)
			}
			left -= int64(m)
			g.Tick()
		}
	}
	return nil
}
