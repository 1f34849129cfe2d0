// Package acceptloop is the accept loop that tlsbench's listeners (the
// built-in server and the proxy) share: a goroutine per connection,
// kept for later connections so that its grown stack is reused,
// back-off on the transient failures a burst of connections causes (out
// of file descriptors), and an end that closes the listener and waits
// for every connection it started.
package acceptloop
