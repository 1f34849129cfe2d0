package command

import (
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/runner"
)

// Values that several commands' flags take or check, and that the
// settings table's help names (helpFacts).

// KeyTypeNames are the key types of a test PKI, as --key and pki's
// --server-keys take them.
func KeyTypeNames() string {
	var names []string
	for _, k := range pki.KeyTypes() {
		names = append(names, string(k))
	}
	return strings.Join(names, ", ")
}

// logLevels are the values of --log-level, in the order the help names
// them (warning is also warn).
var logLevels = []struct {
	name  string
	level slog.Level
}{{"error", slog.LevelError}, {"warn", slog.LevelWarn}, {"info", slog.LevelInfo}, {"debug", slog.LevelDebug}}

// ParseLogLevel reads a --log-level value.
func ParseLogLevel(s string) (slog.Level, error) {
	s = strings.ToLower(s)
	if s == "warning" {
		s = "warn"
	}
	for _, l := range logLevels {
		if l.name == s {
			return l.level, nil
		}
	}
	return 0, errors.New("must be error, warn, info or debug")
}

// MaxIdleTimeout bounds --idle-timeout: a day of silence is no echo
// any benchmark needs.
const MaxIdleTimeout = 24 * time.Hour

// versusSettingNames are the settings --versus-set may give side b.
func versusSettingNames() string {
	return strings.Join(slices.Sorted(maps.Keys(runner.VersusSettings)), ", ")
}
