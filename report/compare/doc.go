// Package compare compares two results files, or the two sides of an
// interleaved run.
//
// [Compare] compares a candidate's records with a baseline's, case by case
// (tlsbench compare, run --baseline): the ratio of means with its standard
// deviation, a Mann-Whitney U test, the change in allocations, a verdict,
// and a loud flag where the two sides resumed at different rates. A pair
// whose sides differ in what sets the cost of the work (group, key type,
// kTLS actually used by each end, session store, …) is not comparable
// unless [CompareOptions.AllowMismatch]: no ratio or verdict, and left out
// of the gate.
// Two separate runs cannot tell drift of the machine from the change, and
// every sequential comparison says so. [ComparePaired] compares the sides
// of one interleaved run (records with a side) on the ratios of the
// iterations measured in the same round: the geometric mean ratio with
// its 99.9% interval and a Wilcoxon signed-rank test; side a2, when
// measured, gives the noise floor. Every comparison calls a significant
// change no larger than the floor (at least [CompareOptions.MinEffect])
// "within noise", not faster or slower.
// Searches for a sustainable rate are one answer per side, with no sample
// to test: Compare judges them by their brackets alone (higher when the
// candidate met a rate the baseline failed, lower when it failed one the
// baseline met, otherwise the brackets overlap), and leaves their steps
// out of the case-by-case comparison.
// [RenderComparison] lays the result out as table, markdown, json or csv,
// and [Comparison.CheckRegressions] is the CI gate.
//
// compare builds on package report (its tables, headline figures and
// number formats) and may import results and stats; report/html draws
// on it, and nothing below imports it.
package compare
