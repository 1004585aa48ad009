package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/harness"
	"github.com/cuonztech/agent-harness/internal/plugin"
	"github.com/cuonztech/agent-harness/plugins/minimal"
)

func TestLoadProxyPlugins(t *testing.T) {
	dir := t.TempDir()
	wasm := filepath.Join(dir, "minimal.wasm")
	if err := os.WriteFile(wasm, minimal.Wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache")
	report := filepath.Join(dir, "report.json")
	// The start-up line of a loaded plugin (behaviour §12.3).
	loaded := "[agent-harness] plugin loaded: minimal 0.1.0, hooks classify, equiv_key, fault; faults noop; file " + wasm + "\n"
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string // the one line; "" = none
		// with a loaded set: the extras for the scenario
		fault   string
		equivs  int
		plugins string
		// report: the startupError substring of a "failed" report file
		report string
	}{
		{name: "no plugin", args: []string{"--scenario", "F1"}, code: exitOK},
		{name: "minimal, built-in scenario", args: []string{"--plugin", wasm, "--scenario", "F1"}, code: exitOK, stderr: loaded,
			equivs: 1, plugins: `[{"name":"minimal","version":"0.1.0","status":"ok","failures":0,"detail":""}]`},
		{name: "minimal, its fault", args: []string{"--plugin", wasm, "--scenario", "noop"}, code: exitOK, stderr: loaded,
			fault: "noop", equivs: 1, plugins: `[{"name":"minimal","version":"0.1.0","status":"ok","failures":0,"detail":""}]`},
		{name: "unknown scenario", args: []string{"--plugin", wasm, "--scenario", "slow_write"}, code: exitUsage,
			stderr: `[agent-harness] proxy: flag --scenario: "slow_write" is not a scenario (F1–F5; plugin faults: noop)` + "\n"},
		{name: "missing module", args: []string{"--plugin", filepath.Join(dir, "none.wasm"), "--report-file", report}, code: exitFailure,
			stderr: "[agent-harness] proxy: loading plugin " + filepath.Join(dir, "none.wasm") + ": ", report: "none.wasm"},
		{name: "report target before the plugins", args: []string{"--plugin", filepath.Join(dir, "none.wasm"), "--report-file", dir}, code: exitUsage,
			stderr: "[agent-harness] proxy: flag --report-file: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(report)
			args := tt.args
			if strings.Contains(strings.Join(args, " "), "--plugin ") {
				args = append(args, "--plugin-cache-dir", cache)
			}
			var stderr bytes.Buffer
			pp, err := openAndLoadPlugins(context.Background(), scenarioOptions(t, args...), &stderr)
			code := cmdExit("proxy", err, io.Discard, &stderr)
			if code != tt.code || (pp != nil) != (code == exitOK) {
				t.Fatalf("code %d plugins %v, want %d; stderr %q", code, pp != nil, tt.code, stderr.String())
			}
			if tt.stderr == "" && stderr.Len() > 0 || !strings.HasPrefix(stderr.String(), tt.stderr) || strings.Count(stderr.String(), "\n") > 1 {
				t.Errorf("stderr %q, want one line starting %q", stderr.String(), tt.stderr)
			}
			b, err := os.ReadFile(report)
			if tt.report == "" && err == nil {
				t.Errorf("report file written: %s", b)
			}
			if tt.report != "" {
				var r struct{ Status, Verdict, StartupError string }
				if err := json.Unmarshal(b, &r); err != nil || r.Status != "failed" || r.Verdict != "NOT_TESTED" || !strings.Contains(r.StartupError, tt.report) {
					t.Errorf("report file %s (%v), want failed, NOT_TESTED, startupError with %q", b, err, tt.report)
				}
			}
			if pp == nil {
				return
			}
			defer pp.Close()
			o := scenarioOptions(t, args...)
			ex := pp.Extras(o.Scenario)
			fault := ""
			if ex.Fault != nil {
				fault = ex.Fault.Name()
			}
			plugins := ""
			if ex.Plugins != nil {
				plugins = string(ex.Plugins())
			}
			if fault != tt.fault || len(ex.Equivalences) != tt.equivs || plugins != tt.plugins || len(pp.Classifiers()) != tt.equivs {
				t.Errorf("fault %q equivalences %d classifiers %d plugins %s; want %q %d %d %s",
					fault, len(ex.Equivalences), len(pp.Classifiers()), plugins, tt.fault, tt.equivs, tt.equivs, tt.plugins)
			}
		})
	}
	// The loading cases used the cache.
	if _, err := os.Stat(cache); err != nil {
		t.Errorf("cache of the loading cases: %v", err)
	}
}

// TestLoadProxyPluginsNoCacheWithoutPlugins: a run without --plugin does
// not touch the default compilation cache directory.
func TestLoadProxyPluginsNoCacheWithoutPlugins(t *testing.T) {
	o := scenarioOptions(t)
	o.PluginCacheDir = filepath.Join(t.TempDir(), "cache")
	pp, err := openAndLoadPlugins(context.Background(), o, &bytes.Buffer{})
	if pp == nil || err != nil {
		t.Fatalf("error %v", err)
	}
	pp.Close()
	if _, err := os.Stat(o.PluginCacheDir); !os.IsNotExist(err) {
		t.Errorf("cache directory: %v, want it never created", err)
	}
}

// openAndLoadPlugins opens the report file and loads the plugins, in
// harness.Run's order, with the CLI's errors.
func openAndLoadPlugins(ctx context.Context, o proxyOptions, stderr io.Writer) (*harness.Plugins, error) {
	c := proxyConfig(o)
	report, err := harness.OpenReport(c, stderr)
	if err != nil {
		return nil, proxyErr(err)
	}
	pp, err := harness.LoadPlugins(ctx, c, report, stderr)
	return pp, proxyErr(err)
}

// TestPluginLoadedLine: the start-up line names the plugin, its version,
// hooks, faults and file, on one line whatever the path holds.
func TestPluginLoadedLine(t *testing.T) {
	m := plugin.Manifest{ABI: 1, Name: "faultpack", Version: "0.2.0", Hooks: []string{"fault", "equiv_same"}, Faults: []string{"slow_write", "partial_success"}}
	got := harness.PluginLoadedLine(m, "/tmp/x\ny.wasm")
	want := `[agent-harness] plugin loaded: faultpack 0.2.0, hooks fault, equiv_same; faults slow_write, partial_success; file /tmp/x\ny.wasm`
	if got != want {
		t.Errorf("line\n got %q\nwant %q", got, want)
	}
}
