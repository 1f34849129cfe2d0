// Package servecmd is the commands of the built-in server: tlsbench
// serve, which runs it alone for external clients (and, with the hidden
// --control-fd, as the child server of tlsbench run), and tlsbench pki,
// which writes the test PKI such a server serves. It also holds the
// server's flags (ServerFlags), one definition that serve and run share
// so that the two cannot drift apart.
package servecmd
