package plan

import (
	"crypto/tls"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/tlsconf"
)

// The values of the throughput settings, read as flags and plan files
// write them, and the rules of them that hold whatever else the run is
// given (the runner checks what its server and proxy can do).

// MaxBuffer is the largest application read/write size of a throughput
// case: the bulk protocol's largest buffer (the runner's tests hold the
// two equal).
const MaxBuffer = 1 << 20

// MaxThroughputConcurrency is the most parallel connections of a
// throughput case.
const MaxThroughputConcurrency = 1024

// ParseSize reads a byte size: a number with an optional binary suffix,
// k/KiB, m/MiB or g/GiB (4k = 4096), as buffer and bytes take it.
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSuffix(t, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<50)/mult {
		return 0, fmt.Errorf("%q is not a size (e.g. 4096, 16k, 64MiB, 1g)", s)
	}
	return n * mult, nil
}

// ParseBuffer reads one buffer size (1 byte to MaxBuffer).
func ParseBuffer(s string) (int, error) {
	n, err := ParseSize(s)
	if err != nil {
		return 0, err
	}
	if n > MaxBuffer {
		return 0, fmt.Errorf("%s is larger than the largest buffer, %s", s, SizeName(MaxBuffer))
	}
	return int(n), nil
}

// ParseCipher reads one cipher name (tlsconf.ParseCipher).
func ParseCipher(s string) (string, error) { return tlsconf.ParseCipher(s) }

// ParseDirection reads one direction.
func ParseDirection(s string) (string, error) {
	switch s {
	case DirectionDownload, DirectionUpload, DirectionBoth:
		return s, nil
	}
	return "", fmt.Errorf("%q is not a direction (want download, upload or both)", s)
}

// ParseSource reads source: "file:PATH" (the only kind so far).
func ParseSource(s string) (string, error) {
	path, ok := strings.CutPrefix(s, "file:")
	if !ok || path == "" {
		return "", fmt.Errorf("%q: want file:PATH", s)
	}
	return path, nil
}

// CheckThroughput refuses the values of a throughput matrix's axes that
// no throughput case can take: an empty axis, a version, cipher,
// direction or wire it does not know, a buffer or a concurrency out of
// range.
func (m *Matrix) CheckThroughput() error {
	if len(m.Versions) == 0 {
		return Errorf(Settings.TLS, nil, "no TLS version given")
	}
	for _, v := range m.Versions {
		if v != tls.VersionTLS12 && v != tls.VersionTLS13 {
			return Errorf(Settings.TLS, nil, "%s: throughput cases run TLS 1.2 or 1.3", tls.VersionName(v))
		}
	}
	if len(m.Ciphers) == 0 {
		return Errorf(Settings.Cipher, nil, "no cipher given (aes128gcm, aes256gcm, chacha20poly1305)")
	}
	for _, c := range m.Ciphers {
		if _, err := ParseCipher(c); err != nil {
			return Errorf(Settings.Cipher, nil, "%v", err)
		}
	}
	if len(m.Buffers) == 0 {
		return Errorf(Settings.Buffer, nil, "no buffer size given (e.g. 4k,16k,64k)")
	}
	for _, b := range m.Buffers {
		if b < 1 || b > MaxBuffer {
			return Errorf(Settings.Buffer, b, "must be between 1 byte and %s", SizeName(MaxBuffer))
		}
	}
	if len(m.KTLS) == 0 {
		return Errorf(Settings.KTLS, nil, "give off, auto or on (or a list, e.g. off,on)")
	}
	if len(m.Directions) == 0 {
		return Errorf(Settings.Direction, nil, "give download, upload or both")
	}
	for _, d := range m.Directions {
		if _, err := ParseDirection(d); err != nil {
			return Errorf(Settings.Direction, nil, "%v", err)
		}
	}
	if len(m.Concurrency) == 0 {
		return Errorf(Settings.Concurrency, nil, "no level given")
	}
	for _, c := range m.Concurrency {
		if c < 1 || c > MaxThroughputConcurrency {
			return Errorf(Settings.Concurrency, c, "must be between 1 and %d parallel connections", MaxThroughputConcurrency)
		}
	}
	switch m.Request {
	case "", RequestBulk, RequestHTTP:
	default:
		return Errorf(Settings.Request, strconv.Quote(m.Request), "want bulk or http")
	}
	return nil
}

// CheckSource refuses a file to send (source file:PATH; "": none)
// that is not a non-empty regular file, or beside a direction other than
// download: the server sends it.
func CheckSource(path string, directions []string) error {
	if path == "" {
		return nil
	}
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return Errorf(Settings.Source, "file:"+path, "%v", err)
	case !fi.Mode().IsRegular() || fi.Size() == 0:
		return Errorf(Settings.Source, "file:"+path, "not a non-empty regular file")
	}
	for _, d := range directions {
		if d != DirectionDownload {
			return Errorf(Settings.Source, nil, "%s file:%s is sent by the server: use %s download (not %s)", Settings.Source, path, Settings.Direction, d)
		}
	}
	return nil
}

// CheckThroughputAmount refuses a throughput plan that does not say how
// much each iteration moves (bytes per connection and direction, or a
// duration: one of them), or that repeats it fewer than once.
func CheckThroughputAmount(bytes int64, duration time.Duration, iterations, warmup int) error {
	if err := CheckAmount(bytes > 0, bytes, duration); err != nil {
		return err
	}
	if bytes == 0 && duration == 0 {
		return Errorf(Settings.Bytes, nil, "%s or %s: give how much each iteration moves (e.g. %s 64MiB or %s 2s)", Settings.Bytes, Settings.Duration, Settings.Bytes, Settings.Duration)
	}
	return CheckRepeats(iterations, warmup)
}

// CheckRepeats refuses fewer than one measured iteration per case, or a
// warm-up below none.
func CheckRepeats(iterations, warmup int) error {
	if iterations < 1 {
		return Errorf(Settings.Iterations, iterations, "must be at least 1")
	}
	if warmup < 0 {
		return Errorf(Settings.Warmup, warmup, "must be 0 or more")
	}
	return nil
}
