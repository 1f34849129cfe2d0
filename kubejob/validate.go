package kubejob

import (
	"strconv"
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/internal/field"
)

// validate checks s (with its defaults) before anything is built, and
// returns the memory quantity it parsed, as the API writes it.
func (s Spec) validate() (string, error) {
	for _, check := range []func() error{s.checkNames, s.checkShape, s.checkTimes} {
		if err := check(); err != nil {
			return "", err
		}
	}
	mem, err := s.memory()
	if err != nil {
		return "", err
	}
	return mem, checkRunArgs(s.RunArgs, s.Secret != "")
}

func (s Spec) checkNames() error {
	if err := dnsLabel("Name", s.Name); err != nil {
		return err
	}
	// An Indexed Job's pods are named NAME-INDEX, which must still be a
	// valid host name.
	if host := s.Name + "-" + strconv.Itoa(max(s.Shards-1, 0)); len(host) > dns1123LabelMaxLength {
		return field.Errorf("Name", s.Name, "too long for %d shards: the pods' host names (%s) must fit in %d characters",
			s.Shards, host, dns1123LabelMaxLength)
	}
	if s.Namespace != "" {
		if err := dnsLabel("Namespace", s.Namespace); err != nil {
			return err
		}
	}
	if s.Secret != "" {
		if !isDNS1123Subdomain(s.Secret) {
			return field.Errorf("Secret", s.Secret, "not a Secret's name: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit")
		}
	}
	switch {
	case strings.TrimSpace(s.Image) == "":
		return field.Errorf("Image", nil, "missing; name the image that holds tlsbench, e.g. registry.example.com/tlsbench:1.0")
	case strings.ContainsAny(s.Image, " \t\n"):
		return field.Errorf("Image", strconv.Quote(s.Image), "an image reference has no spaces")
	}
	return nil
}

// dnsLabel checks a name Kubernetes wants as a DNS label.
func dnsLabel(name, v string) error {
	if !isDNS1123Label(v) {
		return field.Errorf(name, strconv.Quote(v), "not a valid name: at most %d lower-case letters, digits and '-', starting and ending with a letter or digit",
			dns1123LabelMaxLength)
	}
	return nil
}

func (s Spec) checkShape() error {
	switch {
	case s.Shards < 1 || s.Shards > MaxShards:
		return field.Errorf("Shards", s.Shards, "must be between 1 and %d", MaxShards)
	case s.CPUs < 1 || s.CPUs > MaxCPUs:
		return field.Errorf("CPUs", s.CPUs, "must be a whole number of CPUs between 1 and %d", MaxCPUs)
	case s.Spread != SpreadRequired && s.Spread != SpreadPreferred:
		return field.Errorf("Spread", s.Spread, "want %s or %s", SpreadRequired, SpreadPreferred)
	}
	return nil
}

func (s Spec) checkTimes() error {
	switch {
	case s.StartAt.IsZero():
		return field.Errorf("StartAt", nil, "missing: the shards need a common start time")
	case s.Deadline < time.Second || s.Deadline > MaxDeadline:
		return field.Errorf("Deadline", s.Deadline, "must be between 1s and %s", MaxDeadline)
	case s.TTL < 0 || s.TTL > MaxDeadline:
		return field.Errorf("TTL", s.TTL, "must be between 0 (keep the finished Job) and %s", MaxDeadline)
	}
	return nil
}

// memory parses Memory as the API does and holds it to MinMemory; it
// returns the quantity as the API would write it back.
func (s Spec) memory() (string, error) {
	q, ok := parseQuantity(s.Memory)
	if !ok {
		return "", field.Errorf("Memory", strconv.Quote(s.Memory), "want a size such as 512Mi or 2Gi")
	}
	if min, _ := parseQuantity(MinMemory); q.cmp(min) < 0 {
		return "", field.Errorf("Memory", s.Memory, "must be at least %s", MinMemory)
	}
	return q.String(), nil
}
