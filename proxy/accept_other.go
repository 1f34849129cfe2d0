//go:build !unix

package proxy

import "errors"

// errTooManyFiles never happens here.
var errTooManyFiles = errors.New("too many open files")
