package ktls

import "fmt"

// Mode is the --ktls setting: off, auto (use kTLS when the kernel can,
// otherwise user space with a one-line reason) or on (fail without it).
type Mode int

const (
	ModeOff Mode = iota
	ModeAuto
	ModeOn
)

// String returns "off", "auto" or "on".
func (m Mode) String() string {
	switch m {
	case ModeOff:
		return "off"
	case ModeAuto:
		return "auto"
	case ModeOn:
		return "on"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode accepts "off", "auto" and "on".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "off":
		return ModeOff, nil
	case "auto":
		return ModeAuto, nil
	case "on":
		return ModeOn, nil
	}
	return 0, fmt.Errorf("ktls: unknown mode %q (want off, auto or on)", s)
}

// Decide tells whether to call Enable under this mode, using the Supported
// probe. In auto mode an unsupported kernel gives use=false and a one-line
// reason to report (for example "user-space TLS: kTLS unsupported: kernel
// has no TLS ULP (CONFIG_TLS) ..."); in on mode it gives the error, which
// says why the kernel cannot and names no setting.
func (m Mode) Decide() (use bool, reason string, err error) { return m.decide(Supported) }

// DecideFor is Decide for connections of a known TLS version and cipher
// offloaded in dir, using the SupportedFor probe: an auto caller learns
// before it touches a connection that, say, this kernel lacks
// ChaCha20-Poly1305, and stays in user space with that reason.
func (m Mode) DecideFor(version uint16, cipher string, dir Direction) (use bool, reason string, err error) {
	return m.decide(func() error { return SupportedFor(version, cipher, dir) })
}

func (m Mode) decide(probe func() error) (bool, string, error) {
	switch m {
	case ModeOff:
		return false, "kTLS off", nil
	case ModeAuto:
		if err := probe(); err != nil {
			return false, "user-space TLS: " + err.Error(), nil
		}
		return true, "", nil
	case ModeOn:
		if err := probe(); err != nil {
			// Why the kernel cannot; the caller names the mode in
			// its own words.
			return false, "", err
		}
		return true, "", nil
	}
	return false, "", fmt.Errorf("ktls: invalid mode %v", m)
}
