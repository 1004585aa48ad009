package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/harness"
)

func scenarioOptions(t *testing.T, args ...string) proxyOptions {
	t.Helper()
	o, err := parseProxyFlags(append([]string{"--upstream-command", "node"}, args...))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestNewScenarioReportTarget(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		target   string
		wantCode int
		wantErr  string // stderr substring, "" = no stderr
	}{
		{"absent file", filepath.Join(dir, "report.json"), exitOK, ""},
		{"/dev/null", "/dev/null", exitUsage, "[agent-harness] proxy: flag --report-file: checking report file /dev/null: /dev/null is a character device, not a regular file"},
		{"directory", dir, exitUsage, "is a directory, not a regular file"},
		{"missing directories are created", filepath.Join(dir, "no", "r.json"), exitOK, ""},
		{"a parent is a file", filepath.Join(dir, "file", "r.json"), exitUsage,
			"[agent-harness] proxy: flag --report-file: checking report file " + filepath.Join(dir, "file", "r.json") + ": " + filepath.Join(dir, "file") + " is a file, not a directory"},
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			_, cancel := context.WithCancel(context.Background())
			defer cancel()
			s, err := openAndNewScenario(scenarioOptions(t, "--report-file", tt.target), harness.Extras{}, &stderr, cancel)
			code := cmdExit("proxy", err, io.Discard, &stderr)
			if code != tt.wantCode || (s == nil) != (tt.wantCode != exitOK) {
				t.Fatalf("code %d, scenario %v; want %d", code, s != nil, tt.wantCode)
			}
			if tt.wantErr == "" && stderr.Len() != 0 || !strings.Contains(stderr.String(), tt.wantErr) || strings.Count(stderr.String(), "\n") > 1 {
				t.Errorf("stderr %q, want one line containing %q", stderr.String(), tt.wantErr)
			}
			if tt.wantCode == exitOK {
				b, err := os.ReadFile(tt.target)
				if err != nil || !bytes.HasPrefix(b, []byte(`{"status":"starting","verdict":"NOT_TESTED"`)) {
					t.Errorf("startup report %q, %v", b, err)
				}
			}
		})
	}
}

func TestBuildFault(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantName string
		chaos    bool
	}{
		{"plain relay", nil, "", false},
		{"F2 with retry-after", []string{"--scenario", "f2", "--retry-after", "5"}, "F2", false},
		{"chaos with seed", []string{"--mode", "chaos", "--seed", "9", "--error-rate", "0.5"}, "chaos", true},
		{"chaos without seed", []string{"--mode", "chaos"}, "chaos", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := scenarioOptions(t, tt.args...)
			f, name, chaos, err := proxyConfig(o).Fault(harness.Extras{})
			if err != nil {
				t.Fatal(err)
			}
			if name != tt.wantName || (chaos != nil) != tt.chaos || (f == nil) != (tt.wantName == "") {
				t.Fatalf("name %q chaos %+v fault %v", name, chaos, f)
			}
			if chaos == nil {
				return
			}
			c := f.(*fault.Chaos)
			if uint64(chaos.Seed) != c.Seed() || chaos.ErrorRate != c.ErrorRate() || chaos.Seed < 0 || chaos.Seed >= harness.MaxRandomSeed {
				t.Errorf("report seed %d rate %v, fault seed %d rate %v", chaos.Seed, chaos.ErrorRate, c.Seed(), c.ErrorRate())
			}
			if o.SeedSet && chaos.Seed != o.Seed {
				t.Errorf("seed %d, want the flag's %d", chaos.Seed, o.Seed)
			}
		})
	}
	// A plugin fault replaces the built-in one.
	plugin := fault.NewPassTwice()
	f, name, _, err := proxyConfig(scenarioOptions(t)).Fault(harness.Extras{Fault: plugin})
	if err != nil || f != fault.Fault(plugin) || name != "F4" {
		t.Errorf("plugin fault: %v %q %v", f, name, err)
	}
}

// openAndNewScenario opens the report file and builds the session, in
// harness.Run's order, with the CLI's errors.
func openAndNewScenario(o proxyOptions, ex harness.Extras, stderr io.Writer, stop context.CancelFunc) (*harness.Session, error) {
	c := proxyConfig(o)
	report, err := harness.OpenReport(c, stderr)
	if err != nil {
		return nil, proxyErr(err)
	}
	s, err := harness.NewSession(c, report, ex, stderr, stop)
	return s, proxyErr(err)
}
