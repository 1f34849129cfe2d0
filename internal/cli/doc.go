// Package cli is tlsbench's command line: the root command, which
// dispatches to the subcommands (Run, Main), and the run command with
// the commands built on it (kubernetes, probe, completion, version).
// The other commands have packages of their own below it (servecmd,
// proxycmd, reportcmd), over their shared base, package command. Each
// subcommand is a function run(ctx, args, stdout, stderr) error; only
// main turns the error into an exit status (ExitCode), so every command
// can be tested in-process.
//
// Every flag is validated before any work starts; a bad value is a
// UsageError whose one-line message names the flag and the fix (exit 2).
//
// The command line is the only part of tlsbench that knows flag names.
// Libraries return *field.Error (or text with {Field} references) naming
// their settings; package command maps those fields to their flags in one
// place, so users read the flags they typed. No library package imports
// the command line (only main); the hidden --control-fd of serve and proxy
// hands the child server and proxy of tlsbench run to the services' own
// child mains.
package cli
