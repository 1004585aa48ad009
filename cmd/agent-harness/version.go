package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/cuonztech/agent-harness/internal/report"
)

// printVersion prints the version (behaviour §2.7): the harness version that
// reports carry as harnessVersion, then what the Go toolchain recorded in
// the binary — the module version and the VCS revision.
func printVersion(stdout io.Writer) {
	fmt.Fprintln(stdout, versionLine(buildInfo()))
}

// The release stamps, set by the release build with -ldflags "-X
// main.releaseVersion=… -X main.releaseRevision=… -X main.releaseTime=…"
// (.goreleaser.yaml, the Dockerfile, docs/ci.md). A build inside the
// checkout's workspace (go.work) records neither the module version nor
// the VCS revision, and a build without the workspace needs the SDK's
// go.sum lines the module deliberately lacks (RATIONALE: Distribution), so
// the release names them itself. Empty in every other build.
var (
	releaseVersion  string // the tag, "v0.1.0"
	releaseRevision string // the commit's full hash
	releaseTime     string // the commit's time, RFC 3339
)

// buildInfo is the binary's build information with the release stamps in
// what the toolchain left out; `--version` and `plugin new` read it.
func buildInfo() *debug.BuildInfo {
	info, _ := debug.ReadBuildInfo()
	return stampBuildInfo(info, releaseVersion, releaseRevision, releaseTime)
}

// stampBuildInfo returns a copy of info (nil: an empty one) whose module
// version is version when the toolchain recorded none ("" or "(devel)"),
// and whose VCS settings are revision and when (an unmodified tree) when it
// recorded no revision. What the toolchain did record always wins. With no
// stamps, info is returned as it is.
func stampBuildInfo(info *debug.BuildInfo, version, revision, when string) *debug.BuildInfo {
	if version == "" && revision == "" {
		return info
	}
	var c debug.BuildInfo
	if info != nil {
		c = *info
		c.Settings = slices.Clone(info.Settings)
	}
	if version != "" && (c.Main.Version == "" || c.Main.Version == "(devel)") {
		c.Main.Version = version
	}
	recorded := slices.ContainsFunc(c.Settings, func(s debug.BuildSetting) bool { return s.Key == "vcs.revision" })
	if revision != "" && !recorded {
		c.Settings = append(c.Settings, debug.BuildSetting{Key: "vcs.revision", Value: revision}, debug.BuildSetting{Key: "vcs.modified", Value: "false"})
		if when != "" {
			c.Settings = append(c.Settings, debug.BuildSetting{Key: "vcs.time", Value: when})
		}
	}
	return &c
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
