package reporttest

import (
	"bytes"
	"strings"
	"testing"
)

// CheckEscaped renders each output and checks that it shows the hostile
// text as escapes, with no raw control character.
func CheckEscaped(t *testing.T, outputs map[string]func(w *bytes.Buffer) error) {
	t.Helper()
	for name, render := range outputs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := render(&buf); err != nil {
				t.Fatal(err)
			}
			if bad := rawControl(buf.Bytes()); bad != "" {
				t.Errorf("%s output holds a raw control character: %q", name, bad)
			}
			shown := `\x1b]0;owned\x07`
			if strings.Contains(name, "markdown") {
				shown = `\\x1b]0;owned\\x07` // a backslash is escaped
			}
			if name != "benchfmt" && !strings.Contains(buf.String(), shown) {
				t.Errorf("%s output does not show the escape sequence as text", name)
			}
		})
	}
}
