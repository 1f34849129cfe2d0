// Package casenames names a set of a run's cases compactly, by the paths
// their names share: "3 cases (handshake/tls1.3/*, handshake/tls1.2/c8)".
// The report groups notes that hold for many cases under such a name.
package casenames
