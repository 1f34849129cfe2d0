// Package reporttest holds what the tests of the report packages share:
// the results files of report/testdata, golden files with -update, and
// small records built in code. It is for tests only.
package reporttest
