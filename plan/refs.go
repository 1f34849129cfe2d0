package plan

// Settings are the settings of run that validation names, so that an
// error refers to a setting by a value the compiler checks instead of by
// its name in a message. Each is looked up in the table once, when the
// package starts; TestSettingsResolve proves that every one is found.
var Settings = struct {
	Mode, TLS, Resume, ResumeRatio, Concurrency, Key, Groups, Transport, Cipher,
	EarlyData, KeyCache, Mutual *Setting
	Handshakes, Iterations, Warmup, CaseTime, Duration, TargetError,
	MinResumption, MaxErrorRate, ConnTimeout, ClientIdentities, SessionPool,
	TicketReuse *Setting
	Target, SNI, CA, Insecure, ClientCert, ClientKey, ServerPID, ServerCmd, Request *Setting
	Buffer, KTLS, Direction, Bytes, Source                                          *Setting
	Proxy, ProxyCA, ProxyPID, MintCache, ReadFill                                   *Setting
	Rate, Arrival, MaxInflight, FindRate, SLO, MaxRate                              *Setting
	Versus, VersusPID, VersusCmd, VersusServer, VersusSelf, VersusSet               *Setting
	Shard, Shards, StartAt, Profile, ProfileAlloc, Count                            *Setting
	Listen, Identity, EarlyDataPolicy                                               *Setting
}{
	Mode: runSetting("mode"), TLS: runSetting("tls"), Resume: runSetting("resume"), ResumeRatio: runSetting("resume-ratio"),
	Concurrency: runSetting("concurrency"), Key: runSetting("key"), Groups: runSetting("groups"),
	Transport: runSetting("transport"), Cipher: runSetting("cipher"), EarlyData: runSetting("early-data"),
	KeyCache: runSetting("key-cache"), Mutual: runSetting("mutual"),

	Handshakes: runSetting("handshakes"), Iterations: runSetting("iterations"), Warmup: runSetting("warmup"),
	CaseTime: runSetting("case-time"), Duration: runSetting("duration"), TargetError: runSetting("target-error"),
	MinResumption: runSetting("min-resumption"), MaxErrorRate: runSetting("max-error-rate"),
	ConnTimeout: runSetting("conn-timeout"), ClientIdentities: runSetting("client-identities"),
	SessionPool: runSetting("session-pool"), TicketReuse: runSetting("ticket-reuse"),

	Target: runSetting("target"), SNI: runSetting("sni"), CA: runSetting("ca"), Insecure: runSetting("insecure"),
	ClientCert: runSetting("client-cert"), ClientKey: runSetting("client-key"), ServerPID: runSetting("server-pid"),
	ServerCmd: runSetting("server-cmd"), Request: runSetting("request"),

	Buffer: runSetting("buffer"), KTLS: runSetting("ktls"), Direction: runSetting("direction"),
	Bytes: runSetting("bytes"), Source: runSetting("source"),

	Proxy: runSetting("proxy"), ProxyCA: runSetting("proxy-ca"), ProxyPID: runSetting("proxy-pid"),
	MintCache: runSetting("mint-cache"), ReadFill: runSetting("read-fill"),

	Rate: runSetting("rate"), Arrival: runSetting("arrival"), MaxInflight: runSetting("max-inflight"),
	FindRate: runSetting("find-rate"), SLO: runSetting("slo"), MaxRate: runSetting("max-rate"),

	Versus: runSetting("versus"), VersusPID: runSetting("versus-pid"), VersusCmd: runSetting("versus-cmd"), VersusServer: runSetting("versus-server"),
	VersusSelf: runSetting("versus-self"), VersusSet: runSetting("versus-set"),

	Shard: runSetting("shard"), Shards: runSetting("shards"), StartAt: runSetting("start-at"),
	Profile: runSetting("profile"), ProfileAlloc: runSetting("profile-alloc"), Count: runSetting("count"),

	Listen: runSetting("listen"), Identity: runSetting("identity"), EarlyDataPolicy: runSetting("early-data-policy"),
}

// runSetting is run's setting of that name; nil, which the test refuses,
// when the table has none.
func runSetting(name string) *Setting { return Lookup(Run, name) }

// ofFields are the settings of fields joined by "/" (a case's
// NotRunnableBy), those the table declares.
func ofFields(fields []string) []*Setting {
	var out []*Setting
	for _, f := range fields {
		if s := OfField(f); s != nil {
			out = append(out, s)
		}
	}
	return out
}
