package hostname

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits of a DNS name (RFC 1035, 2.3.4): a label of at most 63
// characters, a name of at most 253 written out (255 octets on the wire).
const (
	MaxLabel = 63
	MaxName  = 253
)

// Kinds of name Check accepts.
const (
	// Host is a name to dial, listen on or send as a server name: a DNS
	// name or an IP address.
	Host = iota
	// Certificate is a name a certificate is for: a DNS name, one with
	// a wildcard first label ("*.example.test"), or an IP address
	// (also in brackets, "[::1]").
	Certificate
)

// Check reports why s is not a name of kind: nil for an IP address or a
// DNS name whose labels are 1 to 63 letters, digits, hyphens and
// underscores, none starting or ending with a hyphen, at most 253
// characters in all, with at most one trailing dot, and whose last label
// is not all digits (a mistyped IP address such as 127.0.0.256).
// Underscores are allowed: names that hold them exist (service names of
// container networks, DNS records such as _acme-challenge) and Go's own
// certificate verification matches them, though hostnames proper
// (RFC 952, 1123) leave them out. The error quotes s, shortened.
func Check(s string, kind int) error {
	if err := check(s, kind); err != nil {
		return fmt.Errorf("%s is neither a DNS name nor an IP address: %s", Quote(s), err)
	}
	return nil
}

func check(s string, kind int) error {
	ip := s
	if kind == Certificate && strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		ip = s[1 : len(s)-1]
	}
	if net.ParseIP(ip) != nil {
		return nil
	}
	if s == "" {
		return fmt.Errorf("it is empty")
	}
	name := strings.TrimSuffix(s, ".")
	if len(name) > MaxName {
		return fmt.Errorf("%d characters, at most %d", len(name), MaxName)
	}
	labels := strings.Split(name, ".")
	for i, l := range labels {
		if kind == Certificate && i == 0 && l == "*" && len(labels) > 1 {
			continue
		}
		if err := checkLabel(l); err != nil {
			return err
		}
	}
	if last := labels[len(labels)-1]; strings.Trim(last, "0123456789") == "" {
		return fmt.Errorf("its last label %s is all digits, as no top-level domain is (a mistyped IP address?)", Quote(last))
	}
	return nil
}

// checkLabel reports why l is not a DNS label.
func checkLabel(l string) error {
	switch {
	case l == "":
		return fmt.Errorf("an empty label (two dots in a row, or one at the start)")
	case len(l) > MaxLabel:
		return fmt.Errorf("label %s is longer than %d characters", Quote(l), MaxLabel)
	case l[0] == '-' || l[len(l)-1] == '-':
		return fmt.Errorf("label %s starts or ends with a hyphen", Quote(l))
	}
	for _, r := range l {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			if r == '*' {
				return fmt.Errorf("a wildcard is only allowed as the whole first label of a certificate's name (*.example.test)")
			}
			return fmt.Errorf("%s is not a letter, digit, hyphen or underscore", strconv.QuoteRune(r))
		}
	}
	return nil
}

// Quote quotes s for a one-line message, its first 40 characters only:
// an address or name of 70,000 characters stays a short line.
func Quote(s string) string {
	const show = 40
	if len(s) <= show {
		return strconv.Quote(s)
	}
	cut := s[:show]
	for len(cut) > 0 && !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	return strconv.Quote(cut) + fmt.Sprintf("… (%d characters)", len(s))
}

// CheckHostPort checks the host of a host:port address (an empty host,
// for a listener on every address, passes).
func CheckHostPort(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return nil // the caller's own check of the address says what is wrong
	}
	return Check(host, Host)
}

// Reason is why net could not split or parse an address, without the
// address itself, which net's errors repeat in full: a message quotes
// the address once, clipped by Quote.
func Reason(err error) string {
	var ae *net.AddrError
	if errors.As(err, &ae) {
		return ae.Err
	}
	return err.Error()
}

// IsLoopback reports whether addr (host:port, or a host alone) is on
// this machine's loopback: localhost, 127.0.0.0/8 or ::1.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}
