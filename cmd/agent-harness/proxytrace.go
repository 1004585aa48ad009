package main

import (
	"path/filepath"
	"slices"
	"time"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/report"
	"github.com/cuonztech/agent-harness/internal/trace"
)

// openTrace creates the --trace file with its header (nil without
// --trace). A bad target is a usageError (exit 2), like a bad
// --report-file; both are checked before the upstream starts.
func openTrace(o proxyOptions, st trace.Settings, start time.Time) (*trace.Writer, error) {
	if o.TraceFile == "" {
		return nil, nil
	}
	// The header records the real transports, so a re-judged HTTP run's
	// report says http as the live one does.
	w, err := trace.Create(o.TraceFile, trace.Header{Settings: st, Transport: reportTransport(o)}, start)
	if err != nil {
		return nil, usagef("flag --trace: %s", err)
	}
	return w, nil
}

// traceSettings are the proxy's settings that affect judging, for the
// trace's header: what `agent-harness judge` uses unless told otherwise.
func traceSettings(o proxyOptions, scenario, mode string, chaos *report.ChaosInfo) trace.Settings {
	plugins := make([]string, 0, len(o.Plugins))
	for _, p := range o.Plugins {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		plugins = append(plugins, p)
	}
	return trace.Settings{
		Scenario:             scenario,
		Mode:                 mode,
		Chaos:                chaos,
		Kind:                 "proxy",
		KeyFields:            canon.ParseKeyFields(o.KeyFields).Names(),
		WriteTools:           slices.Clone(o.WriteTools),
		ReadTools:            orEmpty(o.ReadTools),
		IdempotentTools:      orEmpty(o.IdempotentTools),
		IgnoreIdempotentHint: o.IgnoreIdempotentHint,
		RetryAfter:           o.RetryAfter,
		RedactArguments:      o.RedactArguments,
		Plugins:              plugins,
		PluginConfig:         o.PluginConfig,
	}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return slices.Clone(s)
}
