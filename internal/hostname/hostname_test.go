package hostname

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	long := func(n int) string { return strings.Repeat("a", n) }
	name253 := strings.Repeat(long(62)+".", 4) + "a" // four labels of 62, one of 1
	for _, tt := range []struct {
		s    string
		kind int
		want string // "" for valid, else part of the error
	}{
		{"localhost", Host, ""},
		{"www.example.test", Host, ""},
		{"www.example.test.", Host, ""},
		{"xn--bcher-kva.example", Host, ""},
		{"my_service", Host, ""},
		{"a-b.c", Host, ""},
		{"127.0.0.1", Host, ""},
		{"::1", Host, ""},
		{"[::1]", Certificate, ""},
		{"*.example.test", Certificate, ""},
		{long(63) + ".test", Host, ""},
		{name253, Host, ""},
		{name253 + ".", Host, ""},

		{"", Host, "empty"},
		{".", Host, "empty label"},
		{"a..b", Host, "empty label"},
		{".a", Host, "empty label"},
		{"a.b..", Host, "empty label"},
		{long(64) + ".test", Host, "(64 characters) is longer than 63"},
		{long(300), Host, "300 characters, at most 253"},
		{name253 + "a", Host, "254 characters, at most 253"},
		{long(70000), Host, `(70000 characters)`},
		{"-a.test", Host, "hyphen"},
		{"a-.test", Host, "hyphen"},
		{"a b", Host, `' ' is not a letter`},
		{"http://x", Host, `':'`},
		{"ex%41mple", Host, `'%'`},
		{"bücher.example", Host, `'ü'`},
		{"127.0.0.256", Host, "all digits"},
		{"[::1]", Host, `'['`},
		{"*.example.test", Host, "wildcard"},
		{"a.*.test", Certificate, "wildcard"},
		{"*", Certificate, "wildcard"},
		{"*a.test", Certificate, "wildcard"},
	} {
		err := Check(tt.s, tt.kind)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("Check(%.50q, %d) = %v, want nil", tt.s, tt.kind, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("Check(%.50q, %d) = %v, want an error with %q", tt.s, tt.kind, err, tt.want)
		case err != nil && len(err.Error()) > 200:
			t.Errorf("Check(%.50q) error is %d characters long, want it short", tt.s, len(err.Error()))
		}
	}
}

func TestCheckHostPort(t *testing.T) {
	t.Parallel()
	for addr, ok := range map[string]bool{
		"127.0.0.1:443": true, "[::1]:443": true, "localhost:8443": true, ":8443": true,
		strings.Repeat("a", 64) + ":443": false, "a..b:443": false,
	} {
		if err := CheckHostPort(addr); (err == nil) != ok {
			t.Errorf("CheckHostPort(%.40q) = %v", addr, err)
		}
	}
}

func TestIsLoopback(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]bool{
		"127.0.0.1:443": true, "127.9.8.7:1": true, "[::1]:443": true, "localhost:8443": true,
		"::1": true, "127.0.0.1": true, "localhost": true,
		"10.0.0.1:443": false, "[::]:443": false, ":8443": false, "example.com:443": false,
		"localhost.example.com:443": false, "": false,
	} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}
