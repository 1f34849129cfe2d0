//go:build !linux

package ktls

import (
	"errors"
	"testing"
)

// TestSpliceOffLinux: Splice and SyscallConn exist everywhere and report
// that kTLS is unsupported.
func TestSpliceOffLinux(t *testing.T) {
	t.Parallel()
	if n, err := Splice(&Conn{}, &Conn{}, 0); n != 0 || !errors.Is(err, ErrUnsupported) {
		t.Errorf("Splice = %d, %v", n, err)
	}
	if _, err := (&Conn{}).SyscallConn(); !errors.Is(err, ErrUnsupported) {
		t.Errorf("SyscallConn: %v", err)
	}
}
