package results

import (
	"runtime/debug"
	"strings"
)

// Version is tlsbench's version: set at link time with
// -ldflags "-X github.com/tlsbench/tlsbench/results.Version=v1.2.3",
// otherwise taken from the module build information.
var Version = ""

// Build is what a tlsbench program knows of the source it was built from.
type Build struct {
	// Version is the link-time Version if set, else the module version
	// the go command stamped (a release tag, or a pseudo-version naming
	// the commit, "+dirty" when the tree had changes), else
	// "devel-<revision>" or "devel" when nothing is known.
	Version string
	// Revision is the full commit hash the program was built from; ""
	// when it was built outside a repository (go run, test binaries,
	// -buildvcs=false).
	Revision string
	// CommitTime is that commit's time (RFC 3339, UTC); "" when unknown.
	CommitTime string
	// Modified says the tree had uncommitted changes at build time.
	Modified bool
}

// CurrentBuild describes the build of the running program.
func CurrentBuild() Build {
	bi, _ := debug.ReadBuildInfo()
	return buildOf(bi, Version)
}

// buildOf reads bi (nil when the program carries no build information)
// and prefers linked, the link-time version, over the module's.
func buildOf(bi *debug.BuildInfo, linked string) Build {
	var b Build
	if bi != nil {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Revision = s.Value
			case "vcs.time":
				b.CommitTime = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	switch {
	case linked != "":
		b.Version = linked
	case bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)":
		b.Version = bi.Main.Version
	case len(b.Revision) >= 12:
		b.Version = "devel-" + b.Revision[:12]
		if b.Modified {
			b.Version += "+dirty"
		}
	default:
		b.Version = "devel"
	}
	return b
}

// Source is one line naming the revision, its commit time and whether the
// tree was modified; "" when the revision is unknown.
func (b Build) Source() string {
	if b.Revision == "" {
		return ""
	}
	var s strings.Builder
	s.WriteString("revision " + b.Revision)
	if b.CommitTime != "" {
		s.WriteString(", committed " + b.CommitTime)
	}
	if b.Modified {
		s.WriteString(", built with uncommitted changes")
	}
	return s.String()
}
