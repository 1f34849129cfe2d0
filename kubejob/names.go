package kubejob

import "regexp"

// The API's rules for the names this package writes: a DNS label (the
// Job's name, its namespace) or a DNS subdomain (a Secret's name), as
// RFC 1123 spells them and the API server enforces them.
const (
	dns1123LabelMaxLength     = 63
	dns1123SubdomainMaxLength = 253
	dns1123Label              = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
)

var (
	dns1123LabelRE     = regexp.MustCompile("^" + dns1123Label + "$")
	dns1123SubdomainRE = regexp.MustCompile("^" + dns1123Label + `(\.` + dns1123Label + ")*$")
)

func isDNS1123Label(v string) bool {
	return len(v) <= dns1123LabelMaxLength && dns1123LabelRE.MatchString(v)
}

func isDNS1123Subdomain(v string) bool {
	return len(v) <= dns1123SubdomainMaxLength && dns1123SubdomainRE.MatchString(v)
}
