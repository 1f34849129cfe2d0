//go:build !(linux && amd64)

package callgrind

// QuietSignals does nothing where a run is not counted (Available says
// so).
func QuietSignals() error { return nil }
