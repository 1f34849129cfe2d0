// Package proxycmd is tlsbench proxy: the built-in TLS-intercepting
// proxy run alone (HTTP CONNECT, certificates issued per host), or, with
// the hidden --control-fd, as the child proxy of tlsbench run.
package proxycmd
