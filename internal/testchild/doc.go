// Package testchild lets a Go test binary stand in for the tlsbench
// executable when code under test starts the built-in server or proxy as
// a child process: the child is the test binary itself, re-executed with
// an environment variable that makes its TestMain run the service's own
// child main (childproc.RunIfChild) instead of the tests.
//
//	func TestMain(m *testing.M) {
//		testchild.RunIfChild()
//		os.Exit(m.Run())
//	}
//
// It links the server and the proxy, never the CLI, so that the tests of
// the packages below the CLI do not build it. The CLI's own tests, whose
// children run the whole command, call RunMainIfChild with it.
//
// testchild is test support: no production package may import it.
package testchild
