package results

import (
	"bufio"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

// Version is tlsbench's version: set at link time with
// -ldflags "-X github.com/tlsbench/tlsbench/results.Version=v1.2.3",
// otherwise taken from the module build information.
var Version = ""

// CurrentEnv describes the machine and build this process runs on.
func CurrentEnv() Env {
	return Env{
		TLSBenchVersion: version(),
		GoVersion:       runtime.Version(),
		GOOS:            runtime.GOOS,
		GOARCH:          runtime.GOARCH,
		GOMAXPROCS:      runtime.GOMAXPROCS(0),
		NumCPU:          runtime.NumCPU(),
		CPUModel:        cpuModel(),
		Kernel:          kernel(),
		GCMAESDriver:    gcmAESDriver(),
		Started:         time.Now().UTC().Format(time.RFC3339),
	}
}

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return v
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				return "devel-" + s.Value[:12]
			}
		}
	}
	return "devel"
}

// cpuModel reads the first "model name" of /proc/cpuinfo (Linux); elsewhere
// it says unknown rather than guessing.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func kernel() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return runtime.GOOS
	}
	return runtime.GOOS + " " + strings.TrimSpace(string(b))
}
