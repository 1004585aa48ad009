package main

import (
	"runtime/debug"
	"testing"

	"github.com/cuonztech/agent-harness/internal/report"
)

func TestVersionLine(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	tests := []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"no build information", nil, "agent-harness " + report.HarnessVersion + " (development build, revision unknown)"},
		{"devel without VCS", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			"agent-harness " + report.HarnessVersion + " (development build, revision unknown)"},
		{"devel from a checkout", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: vcs("vcs", "git", "vcs.revision", "4b6aa37e8ba2ca96797debb62bac839500927529", "vcs.time", "2026-11-03T09:00:00Z", "vcs.modified", "false")},
			"agent-harness " + report.HarnessVersion + " (development build, revision 4b6aa37e8ba2, 2026-11-03T09:00:00Z)"},
		{"modified tree", &debug.BuildInfo{Main: debug.Module{Version: "v0.1.1-0.20261103090000-4b6aa37e8ba2+dirty"},
			Settings: vcs("vcs.revision", "4b6aa37e8ba2ca96797debb62bac839500927529", "vcs.modified", "true")},
			"agent-harness " + report.HarnessVersion + " (module v0.1.1-0.20261103090000-4b6aa37e8ba2+dirty, revision 4b6aa37e8ba2+modified)"},
		{"release", &debug.BuildInfo{Main: debug.Module{Version: "v0.1.0"}},
			"agent-harness " + report.HarnessVersion + " (module v0.1.0, revision unknown)"},
		{"short revision kept whole", &debug.BuildInfo{Settings: vcs("vcs.revision", "abc")},
			"agent-harness " + report.HarnessVersion + " (development build, revision abc)"},
	}
	for _, tt := range tests {
		if got := versionLine(tt.info); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// TestStampBuildInfo: the release stamps (-ldflags -X main.release…) fill
// in what a workspace build lacks, and never override what the toolchain
// recorded.
func TestStampBuildInfo(t *testing.T) {
	const rev = "4b6aa37e8ba2ca96797debb62bac839500927529"
	workspace := &debug.BuildInfo{Main: debug.Module{Path: "github.com/cuonztech/agent-harness", Version: "(devel)"}}
	tests := []struct {
		name                 string
		info                 *debug.BuildInfo
		version, revision, t string
		want                 string
	}{
		{"release build in the workspace", workspace, "v0.1.0", rev, "2026-11-03T09:00:00Z",
			"agent-harness " + report.HarnessVersion + " (module v0.1.0, revision 4b6aa37e8ba2, 2026-11-03T09:00:00Z)"},
		{"no stamps", workspace, "", "", "",
			"agent-harness " + report.HarnessVersion + " (development build, revision unknown)"},
		{"no build information", nil, "v0.1.0", "", "",
			"agent-harness " + report.HarnessVersion + " (module v0.1.0, revision unknown)"},
		{"the toolchain's version and revision win", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.0"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abcdef"}}}, "v0.1.0", rev, "",
			"agent-harness " + report.HarnessVersion + " (module v0.2.0, revision abcdef)"},
	}
	for _, tt := range tests {
		if got := versionLine(stampBuildInfo(tt.info, tt.version, tt.revision, tt.t)); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
	if workspace.Main.Version != "(devel)" || len(workspace.Settings) != 0 {
		t.Errorf("stampBuildInfo changed its argument: %+v", workspace)
	}
}
