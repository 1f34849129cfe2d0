// Package field is the error that a library returns for a bad setting:
// it names the setting by its field (Concurrency, MaxErrorRate), never by
// a command-line flag, so that the library stays usable without the CLI.
// Only the command line (internal/cli/command) maps a field to the flag a
// user typed and to exit code 2. It imports nothing of tlsbench.
package field
