//go:build !race

package server_test

// raceDetector says the tests run under the race detector, which slows
// every handshake and every record read several times over.
const raceDetector = false
