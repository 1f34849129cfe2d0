// Package plan is what a run measures, declared once: the axes of the
// matrix (each with its values, its segment of the case name, its record
// parameter and typed field, how it configures the client and which ends
// it configures), the cases they expand to, and the settings a user
// declares for a run. It imports no package that runs anything: the
// runner applies a case to the built-in server and proxy through its
// hooks, keyed by an axis's record parameter.
package plan
