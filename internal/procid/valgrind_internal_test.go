package procid

import "testing"

func TestValgrindGuest(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"valgrind.bin", "--tool=callgrind", "-q", "--trace-children=yes", "/usr/sbin/nginx", "-c", "conf"}, "/usr/sbin/nginx"},
		{[]string{"/usr/bin/valgrind.bin", "--tool=callgrind", "/bin/sh", "-c", "gnutls-serv -p 1"}, "/bin/sh"},
		{[]string{"valgrind.bin", "--tool=none"}, ""},
		{nil, ""},
	} {
		if got := valgrindGuest(c.args); got != c.want {
			t.Errorf("valgrindGuest(%q) = %q, want %q", c.args, got, c.want)
		}
	}
	for exe, want := range map[string]bool{
		"/usr/libexec/valgrind/callgrind-amd64-linux":             true,
		"/usr/lib/x86_64-linux-gnu/valgrind/memcheck-amd64-linux": true,
		"/usr/sbin/nginx":   false,
		"/opt/valgrind/bin": false,
	} {
		if got := isValgrindTool(exe); got != want {
			t.Errorf("isValgrindTool(%q) = %v, want %v", exe, got, want)
		}
	}
}
