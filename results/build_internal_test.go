package results

import (
	"runtime/debug"
	"testing"
)

// TestBuildOf covers each source of the version, in order of preference,
// and the revision line read from the go command's VCS settings.
func TestBuildOf(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: "2026-11-30T10:20:30Z"},
			{Key: "vcs.modified", Value: modified},
		}
	}
	info := func(version string, settings []debug.BuildSetting) *debug.BuildInfo {
		bi := &debug.BuildInfo{Settings: settings}
		bi.Main.Path, bi.Main.Version = "github.com/tlsbench/tlsbench", version
		return bi
	}
	tests := []struct {
		name          string
		bi            *debug.BuildInfo
		linked        string
		version, line string
	}{
		{"no build information", nil, "", "devel", ""},
		{"go run or a test binary", info("(devel)", nil), "", "devel", ""},
		{"linked version wins", info("v0.0.0-20261130102030-0123456789ab", vcs("false")), "v1.2.3",
			"v1.2.3", "revision " + rev + ", committed 2026-11-30T10:20:30Z"},
		{"go install of a tag", info("v1.4.0", nil), "", "v1.4.0", ""},
		{"go build in a clean checkout", info("v0.0.0-20261130102030-0123456789ab", vcs("false")), "",
			"v0.0.0-20261130102030-0123456789ab", "revision " + rev + ", committed 2026-11-30T10:20:30Z"},
		{"go build with changes", info("v0.0.0-20261130102030-0123456789ab+dirty", vcs("true")), "",
			"v0.0.0-20261130102030-0123456789ab+dirty", "revision " + rev + ", committed 2026-11-30T10:20:30Z, built with uncommitted changes"},
		{"revision without a module version", info("(devel)", vcs("true")), "",
			"devel-0123456789ab+dirty", "revision " + rev + ", committed 2026-11-30T10:20:30Z, built with uncommitted changes"},
		{"revision without a time", info("(devel)", []debug.BuildSetting{{Key: "vcs.revision", Value: rev}}), "",
			"devel-0123456789ab", "revision " + rev},
	}
	for _, tt := range tests {
		b := buildOf(tt.bi, tt.linked)
		if b.Version != tt.version || b.Source() != tt.line {
			t.Errorf("%s: version %q, source %q; want %q, %q", tt.name, b.Version, b.Source(), tt.version, tt.line)
		}
	}
}

// TestEnvCarriesBuildVersion: records name the version the version
// command prints.
func TestEnvCarriesBuildVersion(t *testing.T) {
	if got, want := CurrentEnv().TLSBenchVersion, CurrentBuild().Version; got != want {
		t.Errorf("env.tlsbench_version %q, build version %q", got, want)
	}
}
