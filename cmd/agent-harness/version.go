package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/cuonztech/agent-harness/internal/report"
)

// printVersion prints the version (behaviour §2.7): the harness version that
// reports carry as harnessVersion, then what the Go toolchain recorded in
// the binary — the module version and the VCS revision.
func printVersion(stdout io.Writer) {
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, versionLine(info))
}

// versionLine renders the version line from the build information (nil
// when the binary has none):
//
//	agent-harness 0.1.0 (module v0.1.0, revision 1a2b3c4d5e6f, 2026-01-02T03:04:05Z)
//	agent-harness 0.1.0 (development build, revision 1a2b3c4d5e6f+modified, 2026-01-02T03:04:05Z)
//	agent-harness 0.1.0 (development build, revision unknown)
//
// The first number is report.HarnessVersion, the one version constant of
// the source: reports write it, and a release tags the module with it. The
// module version is the toolchain's: a tag such as v0.1.0 for `go install
// …@v0.1.0`, a pseudo-version for a build between tags, "(devel)" for a
// build without version information, shown as "development build". The
// revision is the commit the binary was built from, shortened to 12
// characters, "+modified" when the tree had uncommitted changes, "unknown"
// when the build recorded none (-buildvcs=false, no git, go run).
func versionLine(info *debug.BuildInfo) string {
	module := "development build"
	revision, when, modified := "", "", false
	if info != nil {
		if v := info.Main.Version; v != "" && v != "(devel)" {
			module = "module " + v
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	parts := []string{module}
	switch {
	case revision == "":
		parts = append(parts, "revision unknown")
	default:
		if len(revision) > 12 {
			revision = revision[:12]
		}
		if modified {
			revision += "+modified"
		}
		parts = append(parts, "revision "+revision)
		if when != "" {
			parts = append(parts, when)
		}
	}
	return fmt.Sprintf("agent-harness %s (%s)", report.HarnessVersion, strings.Join(parts, ", "))
}
