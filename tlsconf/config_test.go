package tlsconf_test

import (
	"reflect"
	"testing"

	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// TestServerDefaultsMatchTestPKI: the tests' server configuration is what
// Server makes of the same certificate, so tests measure the defaults
// that tlsbench serves with.
func TestServerDefaultsMatchTestPKI(t *testing.T) {
	t.Parallel()
	want, _ := testpki.Server(t)
	got, err := tlsconf.Server(tlsconf.ServerOptions{Certificates: want.Certificates})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tlsconf.Server = %+v, testpki.Server = %+v", got, want)
	}
}
