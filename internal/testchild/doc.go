// Package testchild lets a Go test binary stand in for the tlsbench
// executable when code under test starts the built-in server as a child
// process: the child is the test binary itself, re-executed with an
// environment variable that makes its TestMain run the CLI instead of the
// tests.
//
//	func TestMain(m *testing.M) {
//		testchild.RunIfChild()
//		os.Exit(m.Run())
//	}
//
// testchild is test support: it imports internal/cli (to run the child
// server) and testing, and no production package may import it.
package testchild
