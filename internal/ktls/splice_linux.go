//go:build linux

package ktls

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// SyscallConn returns the socket's raw connection, for system calls made
// on a kTLS socket directly (splice(2), getsockopt). The value hides the
// runtime's poll descriptor, so that the standard library's own zero-copy
// paths (os.File.WriteTo and ReadFrom use sendfile and splice on sockets
// they recognise) never treat the Conn as a plain socket: with a direction
// left in user space they would move plaintext or ciphertext past TLS.
func (c *Conn) SyscallConn() (syscall.RawConn, error) { return rawConn{c.raw}, nil }

// rawConn is a syscall.RawConn without the net package's PollFD method.
type rawConn struct{ r syscall.RawConn }

func (r rawConn) Control(f func(fd uintptr)) error           { return r.r.Control(f) }
func (r rawConn) Read(f func(fd uintptr) (done bool)) error  { return r.r.Read(f) }
func (r rawConn) Write(f func(fd uintptr) (done bool)) error { return r.r.Write(f) }

// spliceChunk is how much one splice(2) asks to move: the default pipe
// capacity (64 KiB), four full TLS records.
const spliceChunk = 64 << 10

// Splice moves what src's kernel decrypts into dst's kernel encryption
// through a pipe with splice(2): the payload never enters user space. It
// needs kTLS RX on src and TX on dst (otherwise an error wrapping
// ErrUnsupported, with nothing moved, so that the caller relays with Read
// and Write instead). It runs until max bytes have moved (max <= 0: no
// limit), src's peer sends close_notify or closes TCP (nil error), or an
// error: an alert from src's peer, a failed write, a deadline of either
// connection (both are honoured: the waits go through the runtime's
// netpoller). It returns the bytes moved either way.
//
// A record that is not application data stops splice(2) (the kernel
// refuses it with EINVAL and keeps it queued); Splice then reads that one
// record through src as Read would (close_notify ends the copy, an alert
// fails it, a TLS 1.3 NewSessionTicket is skipped) and carries on.
// Plaintext that crypto/tls had decrypted before Enable (see Enable) is
// written to dst first, the only bytes that cross user space. Splice does
// not close or half-close either connection.
func Splice(dst, src *Conn, max int64) (int64, error) {
	if dst == nil || src == nil || !src.state.RX || !dst.state.TX {
		return 0, fmt.Errorf("%w: splice needs kernel TLS RX on the source and TX on the destination", ErrUnsupported)
	}
	src.rmu.Lock()
	defer src.rmu.Unlock()
	dst.wmu.Lock()
	defer dst.wmu.Unlock()
	if dst.wclosed {
		return 0, errors.New("ktls: splice: write after close_notify")
	}
	s := &splicer{dst: dst, src: src, max: max}
	return s.run()
}

// splicer is one Splice call in progress; it holds src.rmu and dst.wmu.
type splicer struct {
	dst, src *Conn
	max      int64
	moved    int64
	pr, pw   int // the pipe
}

func (s *splicer) left() int64 {
	if s.max <= 0 {
		return spliceChunk
	}
	return min(spliceChunk, s.max-s.moved)
}

func (s *splicer) run() (int64, error) {
	if done, err := s.pending(); done || err != nil {
		return s.moved, err
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		return 0, os.NewSyscallError("pipe2", err)
	}
	s.pr, s.pw = p[0], p[1]
	defer unix.Close(s.pr)
	defer unix.Close(s.pw)
	for s.left() > 0 {
		n, err := s.in(int(s.left()))
		switch {
		case errors.Is(err, unix.EINVAL):
			// A control record heads the socket's queue.
			if done, err := s.controlRecord(); done || err != nil {
				return s.moved, err
			}
			continue
		case err != nil:
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				s.src.rerr = err
			}
			return s.moved, err
		case n == 0: // TCP FIN without close_notify, as Read reports it
			s.src.rerr = io.EOF
			return s.moved, nil
		}
		if err := s.out(n); err != nil {
			return s.moved, err
		}
	}
	return s.moved, nil
}

// pending writes what src got from crypto/tls at the switch; done means
// src's stream has ended (or an error is due) behind it.
func (s *splicer) pending() (bool, error) {
	src := s.src
	if src.rerr != nil {
		if errors.Is(src.rerr, io.EOF) {
			return true, nil
		}
		return true, src.rerr
	}
	for len(src.pending) > 0 && s.left() > 0 {
		b := src.pending[:min(int64(len(src.pending)), s.left())]
		n, err := s.dst.nc.Write(b)
		s.moved += int64(n)
		src.pending = src.pending[n:]
		if err != nil {
			return true, err
		}
	}
	if len(src.pending) == 0 && src.pendErr != nil {
		src.rerr = src.pendErr
		return s.pending()
	}
	return s.left() == 0, nil
}

// in splices up to n decrypted bytes from src's socket into the empty
// pipe, waiting in the netpoller while the socket has nothing.
func (s *splicer) in(n int) (int, error) {
	var got int
	var serr error
	err := s.src.raw.Read(func(fd uintptr) bool {
		got, serr = splice(int(fd), s.pw, n)
		return serr != unix.EAGAIN
	})
	if err != nil {
		return 0, err
	}
	if serr != nil {
		return 0, serr
	}
	return got, nil
}

// out splices n bytes from the pipe to dst's socket, all of them.
func (s *splicer) out(n int) error {
	for n > 0 {
		var put int
		var serr error
		err := s.dst.raw.Write(func(fd uintptr) bool {
			put, serr = splice(s.pr, int(fd), n)
			return serr != unix.EAGAIN
		})
		if err == nil && serr != nil {
			err = os.NewSyscallError("splice", serr)
		}
		if err == nil && put == 0 {
			err = io.ErrShortWrite
		}
		if err != nil {
			return fmt.Errorf("ktls: splice to the destination: %w", err)
		}
		n -= put
		s.moved += int64(put)
		s.dst.spliced += int64(put)
	}
	return nil
}

// splice is splice(2) without offsets, non-blocking on both ends (the
// kernel's kTLS splice_read honours only SPLICE_F_NONBLOCK, not the
// socket's O_NONBLOCK). EINTR is retried.
func splice(in, out, n int) (int, error) {
	for {
		m, err := unix.Splice(in, nil, out, nil, n, unix.SPLICE_F_NONBLOCK|unix.SPLICE_F_MOVE)
		if err == unix.EINTR {
			continue
		}
		return int(m), err
	}
}

// controlRecord reads (part of) the record that stopped splice(2) through
// one recvmsg(2), as Read would handle it. done means close_notify (or
// TCP EOF): the copy is over without error.
func (s *splicer) controlRecord() (bool, error) {
	src := s.src
	buf := make([]byte, 4096)
	n, typ, err := src.recv(buf)
	if err != nil {
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			src.rerr = err
		}
		return true, err
	}
	if typ == recordApplicationData {
		// Not what the kernel refused to splice, but data all the same.
		m, err := s.dst.nc.Write(buf[:n])
		s.moved += int64(m)
		return err != nil, err
	}
	if err := src.control(typ, buf[:n]); err != nil {
		src.rerr = err
		if errors.Is(err, io.EOF) {
			return true, nil
		}
		return true, err
	}
	return false, nil
}
