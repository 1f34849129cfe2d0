package results

import (
	"strings"
	"testing"
)

// procCrypto is shaped like a Linux 6.1 /proc/crypto with aesni_intel,
// the generic gcm template instantiated by kTLS, and ChaCha20-Poly1305.
const procCrypto = `name         : gcm(aes)
driver       : gcm_base(ctr(aes-generic),ghash-generic)
module       : gcm
priority     : 100
refcnt       : 1
selftest     : passed
internal     : no
type         : aead
async        : no
blocksize    : 1
ivsize       : 12
maxauthsize  : 16
geniv        : <none>

name         : __gcm(aes)
driver       : __generic-gcm-aesni
module       : aesni_intel
priority     : 400
refcnt       : 1
selftest     : passed
internal     : yes
type         : aead
async        : no
blocksize    : 1
ivsize       : 12
maxauthsize  : 16
geniv        : <none>

name         : gcm(aes)
driver       : generic-gcm-aesni
module       : aesni_intel
priority     : 400
refcnt       : 3
selftest     : passed
internal     : no
type         : aead
async        : yes
blocksize    : 1
ivsize       : 12
maxauthsize  : 16
geniv        : <none>

name         : rfc7539(chacha20,poly1305)
driver       : rfc7539(chacha20-simd,poly1305-simd)
module       : chacha20poly1305
priority     : 300
refcnt       : 1
selftest     : passed
internal     : no
type         : aead
`

func TestCryptoDriver(t *testing.T) {
	t.Parallel()
	noVAES := strings.Replace(procCrypto, "refcnt       : 3\nselftest     : passed", "refcnt       : 3\nselftest     : failed", 1)
	for _, tc := range []struct {
		name, in, alg, want string
	}{
		{"highest priority wins", procCrypto, "gcm(aes)", "generic-gcm-aesni"},
		{"failed self-test skipped", noVAES, "gcm(aes)", "gcm_base(ctr(aes-generic),ghash-generic)"},
		{"internal entry not selectable", procCrypto, "__gcm(aes)", ""},
		{"other algorithm", procCrypto, "rfc7539(chacha20,poly1305)", "rfc7539(chacha20-simd,poly1305-simd)"},
		{"absent", procCrypto, "ccm(aes)", ""},
		{"empty file", "", "gcm(aes)", ""},
		{"no trailing blank line", "name : gcm(aes)\ndriver : x\npriority : 5", "gcm(aes)", "x"},
		{"bad priority", "name : gcm(aes)\ndriver : x\npriority : high\n", "gcm(aes)", ""},
	} {
		if got := cryptoDriver(strings.NewReader(tc.in), tc.alg); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
