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
// A run's validation returns *plan.Error, which holds its settings as the
// table declares them, and the libraries below plan *field.Error, which
// names its fields (typed, also inside its reason); package command
// writes both with the flags of the settings table, the commands the
// table does not declare adding their own (proxy, kubernetes), so users
// read the flags they typed. No library package imports the command line
// (only main); the hidden --control-fd of serve and proxy hands the child
// server and proxy of tlsbench run to the services' own child mains.
package cli
