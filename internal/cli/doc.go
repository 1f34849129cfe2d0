// Package cli is tlsbench's command line: subcommands, flag parsing and
// validation, and usage text with examples. Each subcommand is a function
// run(ctx, args, stdout, stderr) error; only main turns the error into an
// exit status (ExitCode), so every command can be tested in-process.
//
// Every flag is validated before any work starts; a bad value is a
// UsageError whose one-line message names the flag and the fix (exit 2).
//
// cli is the only package that knows flag names. A run's validation
// returns *plan.Error, which holds its settings as the table declares
// them, and the libraries below plan *field.Error, which names its fields
// (typed, also inside its reason); both are written with the flags of
// the settings table (userText), the commands the table does not declare
// adding their own (proxy, kubernetes), so users read the flags they
// typed. No library package imports cli (only main); the
// hidden --control-fd of serve and proxy hands the child server and proxy
// of tlsbench run to the services' own child mains.
package cli
