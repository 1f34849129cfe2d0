//go:build !unix

package acceptloop

import "errors"

var errTooManyFiles = errors.New("too many open files")
