// Package plan is what a run measures, declared once.
//
// The settings table declares each setting a user gives a run: its name
// (the flag and the plan-file key), what it takes, its help and help
// group, its default as the user would type it, its fixed values, the
// modes it applies to, the end it configures and whether giving it twice
// adds to it. Flags, help, shell completion, plan files and the checks of
// which settings apply where are derived from the table.
//
// The axis table declares the dimensions of the matrix: each axis's
// values, its segment of the case name, its record parameter and typed
// field, how it configures the client and which ends (the built-in
// server, the built-in proxy) it configures; Matrix expands them into
// the cases a run measures. The runner applies a case to the server and
// the proxy through its hooks, keyed by an axis's record parameter:
// plan imports no package that runs anything.
//
// The rules of settings' values are here too, as functions and small
// types over plain values (a handshake plan's counts, an external
// server, a proxy, side b of an interleaved run, a shard's share of the
// load...), so that the command line and the runner refuse alike, with
// an Error naming the setting at fault; the runner keeps the checks of
// what its servers, proxies and kernel can do.
//
// It also reads and writes plan files: a strict subset of YAML, flat
// "key: value" lines whose values are written as on the command line.
package plan
