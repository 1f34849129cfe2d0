// Package ratelog limits a log that clients can make write: at most a
// burst of lines per window, then one line with the count of the lines
// dropped, so that a flood of bad clients cannot become a flood of log
// lines (or of disk writes), and nothing disappears without a trace.
package ratelog
