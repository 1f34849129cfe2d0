package connerr_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/tlsbench/tlsbench/internal/connerr"
)

func TestKind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{&net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, connerr.Refused},
		{&net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, connerr.Reset},
		{fmt.Errorf("handshake: %w", io.EOF), connerr.EOF},
		{os.ErrDeadlineExceeded, connerr.Timeout},
		{context.DeadlineExceeded, connerr.Timeout},
		{context.Canceled, connerr.Canceled},
		{&tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}, connerr.Verify},
		{fmt.Errorf("handshake: %w", &net.OpError{Op: "remote error", Err: errors.New("tls: bad certificate")}), "alert:bad certificate"},
		{tls.AlertError(40), "alert:handshake failure"},
		{errors.New("something else"), connerr.Other},
	}
	for _, tt := range tests {
		if got := connerr.Kind(tt.err); got != tt.want {
			t.Errorf("Kind(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
