//go:build !(linux && amd64)

package callgrind

// quietSignals does nothing where nothing is counted (Available says
// so).
func quietSignals() {}
