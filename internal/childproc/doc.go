// Package childproc runs a tlsbench service (the built-in server, the
// proxy) in a child process that its parent alone can talk to: an
// inherited Unix socketpair on fd 3, not a network port, so no other
// client can read or reset its counters.
//
// The protocol is lines of JSON. The parent sends the child's
// configuration as the first line; the child answers with its hello (where
// it listens, what to trust) or the reason it could not start, then
// answers "counters" with one line and "quit" by closing the channel.
// Four more requests start and stop CPU and allocation profiles of the
// child into files the parent names (see ReqCPUProfileStart); each is
// answered with one line, {} or {"error": "..."}, a stop once its file
// is complete. The
// child runs in a process group of its own, so that Ctrl-C in a terminal
// reaches the parent alone, which takes its last counters and then stops
// it. A child whose channel closes (the parent died) exits by itself.
//
// The services keep their own typed APIs (server.StartChild,
// proxy.StartChild); this package holds what they share: starting,
// the request/answer discipline, and how a child's end is explained.
//
// A child's body is its service's own Main, registered by the service
// (Register) under the command word its parent starts it with ("serve",
// "proxy"): the CLI hands its hidden --control-fd to it, and a test binary
// that stands in for tlsbench runs it with RunIfChild, without the CLI.
// Another program, re-run as its own child (SelfEnv), runs it with
// RunIfSelfChild; one that does not is caught (RefuseUndispatched,
// ExplainUndispatched) rather than left to run its own main again.
package childproc
