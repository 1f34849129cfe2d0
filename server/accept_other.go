//go:build !unix

package server

import "errors"

var errTooManyFiles = errors.New("too many open files")
