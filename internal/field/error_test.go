package field_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/internal/field"
)

func TestError(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("plan: %w", field.Errorf("Concurrency", 0, "must be at least %d", 1))
	var fe *field.Error
	if !errors.As(err, &fe) || fe.Field != "Concurrency" || fe.Value != "0" {
		t.Fatalf("errors.As(%v) = %+v", err, fe)
	}
	if got, want := fe.Error(), "Concurrency 0: must be at least 1"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got, want := field.Errorf("Versions", nil, "none given").Error(), "Versions: none given"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// TestErrorRefs: the fields a reason refers to are typed, so that a
// command writes them in its own words without parsing the message.
func TestErrorRefs(t *testing.T) {
	t.Parallel()
	flag := func(f string) string { return "--" + strings.ToLower(f) }
	for _, tc := range []struct {
		err        *field.Error
		plain, cli string
	}{
		{field.Errorf("Mutual", nil, "needs the CA (%s FILE)", field.Ref("ClientCA")),
			"Mutual: needs the CA (ClientCA FILE)", "--mutual: needs the CA (--clientca FILE)"},
		{field.Errorf("RevokedFile", nil, "%s applies to client certificates: add %s", field.Ref("RevokedFile"), field.Ref("Mutual")),
			"RevokedFile applies to client certificates: add Mutual", "--revokedfile applies to client certificates: add --mutual"},
		{field.Errorf("", nil, "no password given; give a password file (%s FILE)", field.Ref("P12PasswordFile")),
			"no password given; give a password file (P12PasswordFile FILE)", "no password given; give a password file (--p12passwordfile FILE)"},
		{&field.Error{Field: "Listen", Value: "x", Reason: "want host:port"}, "Listen x: want host:port", "--listen x: want host:port"},
	} {
		if got := tc.err.Error(); got != tc.plain {
			t.Errorf("Error() = %q, want %q", got, tc.plain)
		}
		if got := tc.err.Text(flag); got != tc.cli {
			t.Errorf("Text(flag) = %q, want %q", got, tc.cli)
		}
	}
}
