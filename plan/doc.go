// Package plan holds the settings a user declares for a run, and the
// table that declares each of them once: its name (the flag and the
// plan-file key), what it takes, its help and help group, its default as
// the user would type it, its fixed values, the modes it applies to, the
// end it configures and whether giving it twice adds to it. Flags, help,
// shell completion, plan files and the checks of which settings apply
// where are derived from the table; nothing else declares a setting.
//
// It also reads and writes plan files: a strict subset of YAML, flat
// "key: value" lines whose values are written as on the command line.
package plan
