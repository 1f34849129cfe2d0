package kubejob

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// quantity is a resource quantity (--memory) as the API server reads it:
// the value unscaled×10^exp, the format its suffix chose, and the text
// itself when it was already in the form the API writes back. The API's
// parser has its own rules (it rounds up to a billionth, caps binary
// sizes at 2^63-1, keeps some texts as typed and rewrites others, 1024Mi
// as 1Gi); these follow them, so that the manifest says what it always
// said and the API reads back the size that was checked here.
type quantity struct {
	unscaled *big.Int
	exp      int
	format   quantityFormat
	text     string
}

type quantityFormat int

const (
	decimalSI quantityFormat = iota
	binarySI
	decimalExponent
)

// Nano is the finest scale a quantity keeps: finer values round up to it.
const nanoExp = -9

var (
	decimalSuffixes = map[string]int{"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
	binarySuffixes  = map[string]int{"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
	maxBinary       = big.NewInt(math.MaxInt64)
)

// parseQuantity reads s as the API server does, or reports that it
// would refuse it.
func parseQuantity(s string) (quantity, bool) {
	if s == "" {
		return quantity{}, false
	}
	if s == "0" {
		return quantity{unscaled: new(big.Int), text: s}, true
	}
	p, ok := scanQuantity(s)
	if !ok {
		return quantity{}, false
	}
	exp, format, ok := quantitySuffix(p.suffix)
	if !ok {
		return quantity{}, false
	}
	if q, fast, ok := p.small(s, exp, format); fast {
		return q, ok
	}
	return p.exact(exp, format)
}

// quantityParts are the pieces of a quantity's text: its sign, the
// number as typed (value), its digits before and after the point (the
// former without leading zeros) and its suffix.
type quantityParts struct {
	negative                  bool
	value, num, denom, suffix string
}

// scanQuantity splits s as the API's scanner does: [+-]digits[.digits]
// then a suffix of the letters "eEinumkKMGTP", an optional sign and
// digits.
func scanQuantity(s string) (quantityParts, bool) {
	var p quantityParts
	pos := 0
	if s[0] == '-' || s[0] == '+' {
		p.negative = s[0] == '-'
		pos++
	}
	for pos < len(s) && s[pos] == '0' {
		pos++
	}
	if pos == len(s) {
		p.value, p.num = "0", "0"
		return p, true
	}
	end := digitsFrom(s, pos)
	if end == len(s) {
		p.value, p.num = s, s[pos:]
		return p, true
	}
	p.num, pos = s[pos:end], end
	if p.num == "" {
		p.num = "0"
	}
	if s[pos] == '.' {
		end = digitsFrom(s, pos+1)
		p.denom = s[pos+1 : end]
		if end == len(s) {
			p.value = s
			return p, true
		}
		pos = end
	}
	p.value = s[:pos]
	end = pos
	for end < len(s) && strings.IndexByte("eEinumkKMGTP", s[end]) >= 0 {
		end++
	}
	if end < len(s) && (s[end] == '-' || s[end] == '+') {
		end++
	}
	if digitsFrom(s, end) != len(s) {
		return p, false
	}
	p.suffix = s[pos:]
	return p, true
}

func digitsFrom(s string, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}

// quantitySuffix is the base-10 or base-2 exponent a suffix stands for.
func quantitySuffix(suffix string) (exp int, format quantityFormat, ok bool) {
	if e, ok := decimalSuffixes[suffix]; ok {
		return e, decimalSI, true
	}
	if e, ok := binarySuffixes[suffix]; ok {
		return e, binarySI, true
	}
	if len(suffix) > 1 && (suffix[0] == 'e' || suffix[0] == 'E') {
		e, err := strconv.ParseInt(suffix[1:], 10, 64)
		// The API keeps the exponent in 32 bits.
		return int(int32(e)), decimalExponent, err == nil
	}
	return 0, 0, false
}

// small is the API's fast path, for values that fit 64 bits at a scale
// no finer than nano: fast says whether it applied. It keeps the text
// as typed when the API does.
func (p quantityParts) small(s string, exp int, format quantityFormat) (q quantity, fast, ok bool) {
	scale, precision, mantissa := exp, 18-len(p.num)-len(p.denom), int64(1)
	if format == binarySI {
		scale, precision = 0, -1
		if len(p.denom) == 0 {
			mantissa = 1 << exp
			precision = 15 - len(p.num) - int(float32(exp)*3/10) - 1
		}
	}
	scale -= len(p.denom)
	if precision < 0 || scale < nanoExp {
		return q, false, false
	}
	shifted := p.num + p.denom
	v, err := strconv.ParseInt(shifted, 10, 64)
	if err != nil {
		return q, true, false
	}
	r := new(big.Int).Mul(big.NewInt(v), big.NewInt(mantissa))
	if !r.IsInt64() {
		return q, false, false
	}
	if p.negative {
		r.Neg(r)
	}
	q = quantity{unscaled: r, exp: scale, format: format}
	if format == binarySI && v&0x07 != 0 ||
		format != binarySI && scale%3 == 0 && !strings.HasSuffix(shifted, "000") && shifted[0] != '0' {
		q.text = s
	}
	return q, true, true
}

// exact is the API's general path: any size, rounded up to nano.
func (p quantityParts) exact(exp int, format quantityFormat) (quantity, bool) {
	u, ok := new(big.Int).SetString(strings.Replace(p.value, ".", "", 1), 10)
	if !ok {
		return quantity{}, false
	}
	q := quantity{unscaled: u, exp: -len(p.denom), format: format}
	if format == binarySI {
		u.Lsh(u, uint(exp))
	} else {
		q.exp += exp
	}
	q.roundUpToNano()
	sign := q.unscaled.Sign()
	abs := quantity{unscaled: new(big.Int).Abs(q.unscaled), exp: q.exp}
	if format == binarySI && abs.cmp(quantity{unscaled: maxBinary}) > 0 {
		q.unscaled = new(big.Int).Mul(maxBinary, big.NewInt(int64(sign)))
		q.exp = 0
	}
	if format == binarySI && abs.cmp(quantity{unscaled: big.NewInt(1)}) < 0 && sign != 0 {
		q.format = decimalSI
	}
	return q, true
}

// roundUpToNano rounds away from zero to a billionth, as the API does so
// that a request for some of a resource never becomes none.
func (q *quantity) roundUpToNano() {
	if q.unscaled.Sign() == 0 || q.exp >= nanoExp {
		return
	}
	shift := nanoExp - q.exp
	sign := q.unscaled.Sign()
	abs := new(big.Int).Abs(q.unscaled)
	if shift > len(abs.String()) {
		abs.SetInt64(1) // far below a billionth: one billionth
	} else if quo, rem := new(big.Int).QuoRem(abs, pow10(shift), new(big.Int)); rem.Sign() != 0 {
		abs = quo.Add(quo, big.NewInt(1))
	} else {
		abs = quo
	}
	q.unscaled, q.exp = abs.Mul(abs, big.NewInt(int64(sign))), nanoExp
}

func pow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// cmp compares q and r by value (-1, 0, +1), without computing powers of
// ten as large as an exponent may be.
func (q quantity) cmp(r quantity) int {
	qs, rs := q.unscaled.Sign(), r.unscaled.Sign()
	if qs != rs || qs == 0 {
		return cmpInt(qs, rs)
	}
	a, b := new(big.Int).Abs(q.unscaled), new(big.Int).Abs(r.unscaled)
	// The value lies in [10^(order-1), 10^order).
	if qo, ro := len(a.String())+q.exp, len(b.String())+r.exp; qo != ro {
		return qs * cmpInt(qo, ro)
	}
	if q.exp > r.exp {
		a.Mul(a, pow10(q.exp-r.exp))
	} else {
		b.Mul(b, pow10(r.exp-q.exp))
	}
	return qs * a.Cmp(b)
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// String is the quantity as the API writes it back: the text as typed
// if it kept it, else the canonical form; binary sizes in the largest
// unit that divides them, decimal ones with an exponent that is a
// multiple of three.
func (q quantity) String() string {
	if q.text != "" {
		return q.text
	}
	if q.unscaled.Sign() == 0 {
		return "0"
	}
	if q.format == binarySI {
		if n, ok := q.binaryForm(); ok {
			return n
		}
	}
	u, exp := new(big.Int).Set(q.unscaled), q.exp
	ten, rem := big.NewInt(10), new(big.Int)
	for {
		quo, r := new(big.Int).QuoRem(u, ten, rem)
		if r.Sign() != 0 {
			break
		}
		u, exp = quo, exp+1
	}
	for exp%3 != 0 {
		u.Mul(u, ten)
		exp--
	}
	return u.String() + q.suffix(exp)
}

// binaryForm is a binary size in Ki..Ei, when it is whole and not
// between -1024 and 1024 (the API writes those as decimal).
func (q quantity) binaryForm() (string, bool) {
	abs := quantity{unscaled: new(big.Int).Abs(q.unscaled), exp: q.exp}
	if abs.cmp(quantity{unscaled: big.NewInt(1024)}) < 0 || q.exp < 0 && new(big.Int).Rem(q.unscaled, pow10(-q.exp)).Sign() != 0 {
		return "", false
	}
	n := new(big.Int).Set(q.unscaled)
	if q.exp < 0 {
		n.Quo(n, pow10(-q.exp))
	} else {
		n.Mul(n, pow10(q.exp))
	}
	units, k, rem := []string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}, big.NewInt(1024), new(big.Int)
	i := 0
	for {
		quo, r := new(big.Int).QuoRem(n, k, rem)
		if r.Sign() != 0 {
			break
		}
		n = quo
		i++
	}
	unit := ""
	if i < len(units) {
		unit = units[i]
	}
	return n.String() + unit, true
}

// suffix is the unit of a decimal value of 10^exp. The API writes no
// unit when SI has none for exp (it writes 10^21 as "1"): so does this.
func (q quantity) suffix(exp int) string {
	if q.format == decimalExponent {
		if exp == 0 {
			return ""
		}
		return "e" + strconv.Itoa(exp)
	}
	for s, e := range decimalSuffixes {
		if e == exp {
			return s
		}
	}
	return ""
}
