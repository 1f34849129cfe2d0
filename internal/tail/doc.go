// Package tail keeps the last bytes a child process wrote (its stderr), so
// that a process that fails can be explained in its own words without
// holding all it ever printed. It imports nothing of tlsbench.
package tail
