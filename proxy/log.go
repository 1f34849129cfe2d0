package proxy

import (
	"errors"
	"log/slog"
	"net"
	"strings"
	"unicode/utf8"
)

// maxLogField bounds what a client can put into one log field or header.
const maxLogField = 200

// clip shortens s for a log field; the log handler quotes what remains,
// so control characters cannot forge lines.
func clip(s string) string {
	if len(s) <= maxLogField {
		return s
	}
	s = s[:maxLogField]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

// parseLevel reads a log level name.
func parseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "error":
		return slog.LevelError, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "", "info":
		return slog.LevelInfo, nil
	case "debug":
		return slog.LevelDebug, nil
	}
	return 0, errors.New("must be error, warn, info or debug")
}

// remoteAddr is c's peer address for logs.
func remoteAddr(c net.Conn) string {
	if a := c.RemoteAddr(); a != nil {
		return a.String()
	}
	return ""
}
