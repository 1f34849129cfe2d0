package plan

import (
	"crypto/tls"
	"fmt"
	"strings"

	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// On and Off are how a switch is written, on the command line and in
// plan files.
const (
	On  = "on"
	Off = "off"
)

// onOff are the values of a switch, as its lists take them.
var onOff = []string{Off, On}

// The fixed values of the settings whose names the packages plan may
// import define; the others' values are filled in by the command from
// the constants of the packages that parse them.

func versionNames() []string {
	return []string{tlsconf.VersionName(tls.VersionTLS12), tlsconf.VersionName(tls.VersionTLS13)}
}

func keyTypeNames() []string {
	var out []string
	for _, k := range pki.KeyTypes() {
		out = append(out, string(k))
	}
	return out
}

func cipherNames() []string {
	return []string{tlsconf.CipherAES128GCM, tlsconf.CipherAES256GCM, tlsconf.CipherChaCha20Poly1305}
}

func ticketReuseNames() []string {
	return []string{tlsconf.ReuseMulti.String(), tlsconf.ReuseSingle.String()}
}

func transportNames() []string {
	return []string{TransportTCP, TransportTCP4, TransportTCP6, TransportMemory, TransportQUIC}
}

func ktlsModeNames() []string {
	return []string{ktls.ModeOff.String(), ktls.ModeAuto.String(), ktls.ModeOn.String()}
}

// ParseOnOff reads a switch as flags and plan files take it: on or off
// (true, yes, false, no too), in any case.
func ParseOnOff(s string) (bool, error) {
	switch strings.ToLower(s) {
	case On, "true", "yes":
		return true, nil
	case Off, "false", "no":
		return false, nil
	}
	return false, fmt.Errorf("%q is not on or off", s)
}
