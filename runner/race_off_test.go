//go:build !race

package runner_test

// raceDetector says the tests run under the race detector, which slows
// every handshake several times over.
const raceDetector = false
