//go:build race

package cli_test

// raceDetector says the tests run under the race detector, which takes
// several times the memory and the time of a normal run.
const raceDetector = true
