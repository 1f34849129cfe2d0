package command

import "os"

// FileExists reports whether path names something that exists.
func FileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// SameFile reports whether two paths name one file (an existing one).
func SameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}
