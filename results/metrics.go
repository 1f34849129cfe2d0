package results

// The metrics a case is judged on, by the names --fail-on-regression
// takes: the time per handshake (what a bare percentage gates, and the
// case's own verdict), each end's CPU per handshake, the client's
// allocations per handshake, and the server's and the client's
// instructions per handshake when counted under callgrind (run --count
// instructions). The plan's gates and the comparison's verdicts both
// name them from here.
const (
	MetricWall               = "wall"
	MetricClientCPU          = "client-cpu"
	MetricServerCPU          = "server-cpu"
	MetricProxyCPU           = "proxy-cpu"
	MetricAlloc              = "alloc"
	MetricServerInstructions = "server-instructions"
	MetricClientInstructions = "client-instructions"
)

// Metrics are the metric names, in the order help and reports list them.
func Metrics() []string {
	return []string{MetricWall, MetricClientCPU, MetricServerCPU, MetricProxyCPU, MetricAlloc, MetricServerInstructions, MetricClientInstructions}
}
