// Package cli is tlsbench's command line: subcommands, flag parsing and
// validation, and usage text with examples. Each subcommand is a function
// run(ctx, args, stdout, stderr) error; only main turns the error into an
// exit status (ExitCode), so every command can be tested in-process.
//
// Every flag is validated before any work starts; a bad value is a
// UsageError whose one-line message names the flag and the fix (exit 2).
//
// cli is the only package that knows flag names. Libraries return
// *field.Error (or text with {Field} references) naming their settings;
// each command maps those fields to its flags in one place, so users read
// the flags they typed. No library package imports cli (only main); the
// hidden --control-fd of serve and proxy hands the child server and proxy
// of tlsbench run to the services' own child mains.
package cli
