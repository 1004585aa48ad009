package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/plugins/minimal"
)

func TestPluginInspect(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "minimal.wasm")
	os.WriteFile(good, minimal.Wasm, 0o644)
	bad := filepath.Join(dir, "bad.wasm")
	os.WriteFile(bad, []byte("not wasm"), 0o644)
	cache := "--plugin-cache-dir=" + filepath.Join(dir, "cache")

	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string // substrings
		stderr string   // exact
	}{
		{name: "inspect", args: []string{"inspect", cache, good}, code: exitOK, stdout: []string{
			"path         " + good + " (387 bytes)\n", "name         minimal\n", "version      0.1.0\n", "abi          1\n",
			"hooks        classify, equiv_key, fault\n", "faults       noop\n", "imports      \n", "memory       64.0 KiB per instance after init\n"}},
		{name: "rejected", args: []string{"inspect", cache, bad}, code: exitFailure,
			stderr: "[agent-harness] plugin inspect: loading plugin " + bad + ": not a WebAssembly module\n"},
		{name: "no subcommand", args: nil, code: exitUsage,
			stderr: "[agent-harness] plugin: missing subcommand (inspect, check, new); see agent-harness plugin --help\n"},
		{name: "unknown subcommand", args: []string{"run"}, code: exitUsage,
			stderr: "[agent-harness] plugin: unknown subcommand \"run\" (want inspect, check or new)\n"},
		{name: "no path", args: []string{"inspect"}, code: exitUsage,
			stderr: "[agent-harness] plugin inspect: missing PATH of the .wasm module\n"},
		{name: "bad timeout", args: []string{"inspect", "--plugin-timeout=0s", good}, code: exitUsage,
			stderr: "[agent-harness] plugin inspect: invalid --plugin-timeout \"0s\": a Go duration from 1ms to 60s\n"},
		{name: "bad start timeout", args: []string{"inspect", "--plugin-start-timeout", "11m", good}, code: exitUsage,
			stderr: "[agent-harness] plugin inspect: invalid --plugin-start-timeout \"11m\": a Go duration from 1ms to 10m\n"},
		{name: "start timeout", args: []string{"inspect", cache, "--plugin-start-timeout=10m", good}, code: exitOK, stdout: []string{"name         minimal\n"}},
		{name: "bad config", args: []string{"inspect", "--config={", good}, code: exitUsage,
			stderr: "[agent-harness] plugin inspect: invalid --config: not valid JSON\n"},
		{name: "help", args: []string{"inspect", "--help"}, code: exitOK, stdout: []string{"Usage: agent-harness plugin inspect"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append([]string{"plugin"}, tt.args...), nil, &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, stderr.String())
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout %q lacks %q", stdout.String(), s)
				}
			}
			if tt.stdout == nil && stdout.Len() > 0 {
				t.Errorf("stdout %q, want nothing", stdout.String())
			}
			if stderr.String() != tt.stderr {
				t.Errorf("stderr %q, want %q", stderr.String(), tt.stderr)
			}
		})
	}
}

func TestPluginInspectJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "minimal.wasm")
	os.WriteFile(path, minimal.Wasm, 0o644)
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"plugin", "inspect", "--json", "--plugin-cache-dir", t.TempDir(), path}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var out struct {
		Manifest struct {
			Name   string   `json:"name"`
			Faults []string `json:"faults"`
		} `json:"manifest"`
		Size int `json:"size"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || out.Manifest.Name != "minimal" || out.Size != 387 || out.Manifest.Faults[0] != "noop" {
		t.Errorf("JSON %s (%v)", stdout.String(), err)
	}
}
