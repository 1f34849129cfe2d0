// Package field is the error that a library below plan returns for a bad
// setting (the server's, the proxy's, a case's): it names the setting by
// its field (SessionStore, Allow), never by a command-line flag, so that
// the library stays usable without the CLI, and the fields its reason
// refers to are typed (Ref), so that the command line
// (internal/cli/command) writes them as its flags without parsing the
// message. The settings of a run are plan.Error. It imports nothing of
// tlsbench.
package field
