package results

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"
)

// gcmAESDriver is the driver the kernel's crypto API picks for gcm(aes):
// kernel TLS encrypts AES-GCM records with it, so it decides whether kTLS
// is faster than Go's own AES-GCM (an AES-NI/VAES driver against
// "gcm_base(ctr(aes-generic),ghash-generic)" is a different race). Empty
// where /proc/crypto is unreadable or gcm(aes) was never instantiated
// (nothing used it since boot and no module registers it directly).
func gcmAESDriver() string {
	f, err := os.Open("/proc/crypto")
	if err != nil {
		return ""
	}
	defer f.Close()
	return cryptoDriver(f, "gcm(aes)")
}

// cryptoDriver parses /proc/crypto (blocks of "key : value" lines
// separated by blank lines) and returns the driver of the entry with the
// given name and the highest priority, which is the one the kernel
// chooses; entries that failed their self-test or are internal (not
// selectable by name) are skipped.
func cryptoDriver(r io.Reader, name string) string {
	best, bestPrio := "", int64(-1)
	entry := map[string]string{}
	consider := func() {
		if entry["name"] == name && entry["selftest"] != "failed" && entry["internal"] != "yes" && entry["driver"] != "" {
			prio, err := strconv.ParseInt(entry["priority"], 10, 64)
			if err == nil && prio > bestPrio {
				best, bestPrio = entry["driver"], prio
			}
		}
		clear(entry)
	}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			if strings.TrimSpace(sc.Text()) == "" {
				consider()
			}
			continue
		}
		entry[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	consider()
	return best
}
