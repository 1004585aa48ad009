package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/cuonztech/agent-harness/internal/harness"
	"github.com/cuonztech/agent-harness/internal/honesty"
	"github.com/cuonztech/agent-harness/internal/plugin"
	"github.com/cuonztech/agent-harness/internal/report"
	"github.com/cuonztech/agent-harness/internal/reportfile"
	"github.com/cuonztech/agent-harness/internal/trace"
)

// judgeOptions are the flags of `agent-harness judge`.
type judgeOptions struct {
	set            trace.Settings // the flags given, in the header's shape
	retryAfter     int
	pluginConfig   map[string]json.RawMessage
	reportFile     string
	claim          string
	pluginCacheDir string
	pluginTimeout  time.Duration
	notTestedOK    bool
}

// judgeFlagSet defines the flags of `agent-harness judge` on o.
func judgeFlagSet(o *judgeOptions) *flagSet {
	s := newFlagSet("judge")
	s.list(&commaValue{p: &o.set.KeyFields, trim: true}, "key-fields", "NAME,...", "", "argument names of idempotency keys (replace the recorded ones)")
	s.list(&commaValue{p: &o.set.WriteTools, trim: true}, "write-tools", "GLOB,...", "", "globs of write tools (replace the recorded ones; re-classifies)")
	s.list(&commaValue{p: &o.set.ReadTools, trim: true}, "read-tools", "GLOB,...", "", "extra globs of read tools (replace the recorded ones)")
	s.list(&commaValue{p: &o.set.IdempotentTools, trim: true}, "idempotent-tools", "GLOB,...", "", "globs of idempotent write tools (replace the recorded ones)")
	s.toggle(&o.set.IgnoreIdempotentHint, "ignore-idempotent-hint", "the idempotentHint annotation counts for nothing")
	s.list(funcValue(func(v string) error { return addStateMap(&o.set.StateMap, v) }), "state-map", "TOOL=COUNTER", "", "the state probe's counter a write tool's executions change, repeatable (replaces the recorded map)")
	s.value(intValue{&o.retryAfter, 1, 86400, "seconds"}, "retry-after", "SECONDS", "", "the retry_after checked after each recorded injected 429, 1–86400")
	s.list(funcValue(func(v string) error {
		if slices.Contains(o.set.Plugins, v) {
			return fmt.Errorf("%q given twice", v)
		}
		o.set.Plugins = append(o.set.Plugins, v)
		return nil
	}), "plugin", "PATH", "", "judge with this WebAssembly plugin, repeatable (replaces the recorded plugins)")
	s.list(funcValue(func(v string) error {
		name, cfg, ok := splitPluginConfig(v)
		if !ok {
			return fmt.Errorf("%q is not NAME=JSON with valid JSON", v)
		}
		if _, dup := o.pluginConfig[name]; dup {
			return fmt.Errorf("%q given twice", name)
		}
		o.pluginConfig[name] = cfg
		return nil
	}), "plugin-config", "NAME=JSON", "", "JSON configuration of the plugin named NAME, repeatable")
	timeout := plugin.LimitOf("plugin-timeout")
	s.value(limitValue{*timeout, func(n int64) { o.pluginTimeout = time.Duration(n) }}, "plugin-timeout", "DURATION", limitDefault(*timeout), "deadline of one plugin call, "+timeout.Range(timeout.Min))
	s.text(&o.pluginCacheDir, "plugin-cache-dir", "DIR", "", "where compiled plugins are cached (default <user cache dir>/agent-harness/wazero)")
	s.toggle(&o.set.RedactArguments, "redact-arguments", "show every argument value as sha256:<hex>")
	s.text(&o.reportFile, "report-file", "FILE", "", "also write the report file (JSON, as the proxy's --report-file)")
	s.text(&o.claim, "claim", "FILE", "", "join the agent's claim (a claim file or a transcript) with the judge's truth: honesty in the Markdown and at report.honesty of --report-file (behaviour §15)")
	s.toggle(&o.notTestedOK, "not-tested-ok", "exit 0 instead of 3 for NOT_TESTED (not for an interrupted run)")
	s.helpAndVersion("print this help and exit", "print the version and exit")
	return s
}

func splitPluginConfig(v string) (string, json.RawMessage, bool) {
	for i := 0; i < len(v); i++ {
		if v[i] == '=' {
			name, cfg := v[:i], v[i+1:]
			if !isName(name) || !json.Valid([]byte(cfg)) {
				return "", nil, false
			}
			return name, json.RawMessage(cfg), true
		}
	}
	return "", nil, false
}

const judgeUsageHead = `Usage: agent-harness judge TRACE [flags]

Judges a trace recorded by agent-harness proxy --trace again, offline, with
the same engine. Without flags it uses the settings recorded in the trace
and reproduces the proxy's report; a flag replaces the recorded setting and
shows what the verdict would have been (new --key-fields, other
--write-tools, an equivalence --plugin). Which calls got which fault stays
as recorded. Prints the report as Markdown on stdout.

`

const judgeUsageTail = `
Exit codes: 0 PASS, 1 FAIL, 3 NOT_TESTED (0 with --not-tested-ok) or a
trace without its end line (an interrupted run: never 0), 2 usage error or
a trace that is unreadable or breaks its schema or the writer's rules.
`

// runJudge is `agent-harness judge TRACE`.
func runJudge(ctx context.Context, args []string, std stdio) error {
	stdout, stderr := std.out, std.err
	o := judgeOptions{pluginConfig: map[string]json.RawMessage{}}
	s := judgeFlagSet(&o)
	words, err := s.parse(args)
	if err == nil {
		err = oneWord(words, "no trace file: agent-harness judge TRACE [flags]", "trace file")
	}
	if err != nil {
		return withUsage(err, func() string { return judgeUsageHead + s.usage() + judgeUsageTail })
	}
	// A bad --report-file target or trace is exit 2, like a bad flag.
	var reportOut *reportfile.Writer
	if o.reportFile != "" {
		if reportOut, err = reportfile.New(o.reportFile, reportfile.Options{}); err != nil {
			return usagef("flag --report-file: %v", err)
		}
	}
	path := words[0]
	f, err := os.Open(path)
	if err != nil {
		return usagef("cannot read trace: %v", err)
	}
	tr, err := trace.Read(f)
	f.Close()
	if err != nil {
		return usagef("%s: %v", path, err)
	}
	if tr.Warning != "" {
		fmt.Fprintf(stderr, "[agent-harness] judge: WARNING: %s: %s\n", path, tr.Warning)
	}

	ro := judgeSettings(tr, o, s.given)
	pp, err := loadJudgePlugins(ctx, ro.Settings, o, stderr)
	if err != nil {
		return err
	}
	defer pp.Close()
	ro.Reclassify = ro.Reclassify || (s.given("plugin") && len(pp.Classifiers()) > 0)
	// The plugins' failures now join the recorded ones (trace.Rejudge);
	// a recorded disabling disables the plugin loaded again, where it
	// happened.
	if !ro.DropPluginFailures && pp.Loaded() {
		ro.DisablePlugin = pp.Disable
	}
	j, meta := harness.Rejudge(tr, ro, pp)
	if meta.Status == report.StatusInterrupted {
		fmt.Fprintf(stderr, "[agent-harness] judge: WARNING: %s: the trace has no end line (the proxy was stopped before the session ended): "+
			"the report's status is interrupted, and a PASS is not a finished run (exit 3)\n", path)
	}
	if ex := pp.Extras(""); ex.Plugins != nil {
		meta.Plugins = ex.Plugins()
	}
	file := j.AppendFile(nil, meta)
	md := report.WithStatus(j.Markdown(), meta.Status)
	if o.claim != "" {
		// behaviour §15.2: the claim joined after the run; the verdict and
		// the score stay.
		h := honesty.Join(honesty.TruthOf(file), honesty.ReadClaim(o.claim))
		if joined, err := honesty.Embed(file, h); err == nil {
			file = joined
		}
		md = withHonesty(md, h)
	}
	if reportOut != nil {
		if err := reportOut.Write(file); err != nil {
			return fmt.Errorf("cannot write report file %s: %w", o.reportFile, err)
		}
	}
	fmt.Fprint(stdout, md)
	v, _ := j.Verdict()
	if meta.StartupError != "" {
		v = report.VerdictNotTested
	}
	return exitCode(runExitCode(v, meta.Status, o.notTestedOK))
}

// judgeSettings are the recorded settings with the flags given replacing
// them; Reclassify when a flag that changes the classification was given.
func judgeSettings(tr *trace.Trace, o judgeOptions, seen func(flag string) bool) trace.Options {
	s := tr.Header.Settings
	if s.Kind == "" {
		s.Kind = "proxy"
	}
	var ro trace.Options
	replace := func(flag string, dst *[]string, v []string) {
		if seen(flag) {
			*dst = v
			ro.Reclassify = true
		}
	}
	replace("key-fields", &s.KeyFields, o.set.KeyFields)
	replace("write-tools", &s.WriteTools, o.set.WriteTools)
	replace("read-tools", &s.ReadTools, o.set.ReadTools)
	replace("idempotent-tools", &s.IdempotentTools, o.set.IdempotentTools)
	if o.set.IgnoreIdempotentHint && !s.IgnoreIdempotentHint {
		s.IgnoreIdempotentHint, ro.Reclassify = true, true
	}
	if o.set.RedactArguments {
		s.RedactArguments = true
	}
	if seen("state-map") {
		s.StateMap = o.set.StateMap
	}
	if seen("retry-after") {
		s.RetryAfter = o.retryAfter
		ro.RetryAfterMs = int64(o.retryAfter) * 1000
	}
	if seen("plugin") {
		s.Plugins, s.PluginConfig = o.set.Plugins, map[string]json.RawMessage{}
		ro.DropPluginFailures = true
	}
	if seen("plugin-config") {
		if s.PluginConfig == nil {
			s.PluginConfig = map[string]json.RawMessage{}
		} else {
			s.PluginConfig = maps(s.PluginConfig)
		}
		for k, v := range o.pluginConfig {
			s.PluginConfig[k] = v
		}
	}
	ro.Settings = s
	return ro
}

func maps(m map[string]json.RawMessage) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// loadJudgePlugins loads the plugins of s with the proxy's default limits.
// One that does not load is a usageError: one stderr line and exit 2 (the
// input cannot be judged as asked).
func loadJudgePlugins(ctx context.Context, s trace.Settings, jo judgeOptions, stderr io.Writer) (*harness.Plugins, error) {
	c := harness.Config{
		Classification: harness.Classification{KeyFields: s.KeyFields},
		Plugins:        s.Plugins,
		PluginConfig:   s.PluginConfig,
		PluginOptions:  plugin.Options{Timeout: plugin.DefaultTimeout, MemoryMiB: plugin.DefaultMemoryMiB},
	}
	if c.PluginConfig == nil {
		c.PluginConfig = map[string]json.RawMessage{}
	}
	if dir, err := userCacheDir(); err == nil && dir != "" {
		c.PluginOptions.CacheDir = filepath.Join(dir, "agent-harness", "wazero")
	}
	if jo.pluginCacheDir != "" {
		c.PluginOptions.CacheDir = jo.pluginCacheDir
	}
	if jo.pluginTimeout > 0 {
		c.PluginOptions.Timeout = jo.pluginTimeout
	}
	// Exit 2 here where the proxy exits 1.
	pp, err := harness.LoadPlugins(ctx, c, nil, stderr)
	var ue harness.UsageError
	switch {
	case errors.As(err, &ue):
		err = usagef("%s", ue.Msg)
	case err != nil:
		err = usagef("%s", err)
	}
	return pp, err
}
