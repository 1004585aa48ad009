package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/harness"
	"github.com/cuonztech/agent-harness/internal/plugin"
	"github.com/cuonztech/agent-harness/internal/state"
)

// proxyOptions is the validated configuration of `agent-harness proxy`
// (behaviour §2.7 and the plugin flags of §9). The zero value is not meaningful;
// parseProxyFlags fills every default.
type proxyOptions struct {
	// upstreamOptions are the upstream command flags.
	upstreamOptions

	// Scenario is "" (plain relay), "F1".."F5" (normalised from any case),
	// or, when Plugins is not empty, a plugin fault name to check against
	// the plugin manifests.
	Scenario string
	// Chaos is --mode ("deterministic", the default, or "chaos"),
	// --error-rate (0–1, default 0.2) and --seed (SeedSet when given;
	// otherwise the proxy draws a random seed and prints it).
	harness.Chaos
	// RetryAfter is the F2 retry_after in seconds, 1–86400 (default 60).
	RetryAfter int

	// Classification is --write-tools, --read-tools, --idempotent-tools,
	// --ignore-idempotent-hint and --key-fields (default
	// ["idempotency_key"]).
	harness.Classification

	// AuditTools is true unless --audit-tools off.
	AuditTools bool
	// ReportFile is the --report-file path; "" = none. Only its syntax is
	// checked here.
	ReportFile string
	// RedactArguments: --redact-arguments, argument values are shown as
	// hashes (behaviour §5.4).
	RedactArguments bool
	// TraceFile is the --trace path; "" = no trace (behaviour §7).
	TraceFile string
	// ReportInterval is --report-interval: rewrite the report file at most
	// this often (only with --trace); 0 = at every event.
	ReportInterval time.Duration
	// NoReplace is --no-replace: a --report-file or --trace that exists
	// already (another proxy's) is kept and this proxy takes the next free
	// numbered names (report.2.json, trace.2.jsonl, …; behaviour §9.1).
	NoReplace bool

	// pluginOptions are the --plugin* flags.
	pluginOptions

	// OnCancel is --on-cancel: "forward" (default) or "swallow".
	OnCancel string

	// State are the --state-* flags (behaviour §16).
	State harness.State

	// Quiet (--quiet) drops the startup table and the fired, violation and
	// summary lines; warnings and errors stay (behaviour §2.8).
	Quiet bool

	// HTTP are the Streamable HTTP flags (proxyflags_http.go).
	HTTP httpOptions

	// commandWhere is where the upstream command came from when it was
	// given as words: "after --" or "after the flags"; "" for
	// --upstream-command.
	commandWhere string
}

// upstreamOptions are the flags that start the upstream and bound its
// answers.
type upstreamOptions struct {
	// UpstreamCommand starts the upstream MCP server (required).
	UpstreamCommand string
	// UpstreamArgs are the --upstream-args elements followed by the
	// --upstream-arg values, each in command-line order.
	UpstreamArgs []string
	// UpstreamCwd is the upstream's working directory; "" = the proxy's.
	UpstreamCwd string
	// UpstreamEnv are KEY=VALUE entries added to the proxy's own
	// environment for the upstream: the --upstream-env elements, then the
	// --upstream-env-var values. Each KEY occurs once.
	UpstreamEnv []string
	// UpstreamTimeout bounds the wait for an upstream answer (default 60s).
	UpstreamTimeout time.Duration
}

// pluginOptions are the --plugin* flags.
type pluginOptions struct {
	// Plugins are the --plugin paths in order.
	Plugins []string
	// PluginConfig maps a plugin's manifest name to its configuration JSON.
	PluginConfig map[string]json.RawMessage
	// PluginTimeout is the per-call deadline of a plugin (default 100ms).
	PluginTimeout time.Duration
	// PluginMemoryMiB caps a plugin instance's memory (default 128).
	PluginMemoryMiB int
	// PluginCacheDir is the compilation cache; default
	// os.UserCacheDir()/agent-harness/wazero, "" when there is no user
	// cache directory (then: no on-disk cache).
	PluginCacheDir string
	// PluginLimits are the other limits of plugin.Options, each set by
	// its own --plugin-* flag; zero fields mean plugin's defaults.
	PluginLimits pluginLimits
}

// pluginLimits are the plugin limits beyond timeout and memory, in
// plugin's own type: each --plugin-* flag of plugin.Limits sets its field;
// a zero field leaves plugin's default.
type pluginLimits = plugin.Options

// userCacheDir is os.UserCacheDir, replaceable in tests.
var userCacheDir = os.UserCacheDir

// Flag groups, in usage order.
const (
	groupUpstream = "Upstream"
	groupScenario = "Scenario"
	groupClassify = "Classification"
	groupReport   = "Report"
	groupPlugin   = "Plugins"
	groupState    = "State probes"
	groupOps      = "Operations"
)

// parseState holds what the flags fill beyond proxyOptions.
type parseState struct {
	upstreamArgsList []string // --upstream-args
	upstreamArg      []string // --upstream-arg
	envList          []string // --upstream-env
	envVar           []string // --upstream-env-var
	envKeys          map[string]bool
}

// proxyFlagSet defines the proxy's flags on o and p, in the order and
// groups of the --help.
func proxyFlagSet(o *proxyOptions, p *parseState) *flagSet {
	s := newFlagSet("proxy")
	s.group = groupUpstream
	s.text(&o.UpstreamCommand, "upstream-command", "CMD", "", "command that starts the upstream MCP server (required)")
	upstreamURLFlags(s, &o.HTTP)
	s.list(funcValue(func(v string) error {
		p.upstreamArg = append(p.upstreamArg, v)
		return nil
	}), "upstream-arg", "ARG", "", "one argument of the upstream command, repeatable, may contain commas")
	s.list(&commaValue{p: &p.upstreamArgsList}, "upstream-args", "A,B,...", "", "comma-separated arguments (no commas inside), before the --upstream-arg values")
	s.text(&o.UpstreamCwd, "upstream-cwd", "DIR", "the proxy's", "working directory of the upstream")
	s.list(funcValue(func(v string) error {
		kv, err := p.envEntry(v)
		if err == nil {
			p.envVar = append(p.envVar, kv)
		}
		return err
	}), "upstream-env-var", "KEY=VALUE", "", "environment variable for the upstream, repeatable; VALUE may contain , and =")
	s.list(funcValue(p.envList1), "upstream-env", "K=V,...", "", "comma-separated KEY=VALUE pairs for the upstream")

	s.group = groupScenario
	s.value(funcValue(o.setScenario), "scenario", "ID", "none: plain relay", fault.ScenarioRange()+" (any case), or a fault name declared by a --plugin")
	s.value(choiceValue(&o.Mode, "a mode (deterministic or chaos)", "deterministic", "chaos"), "mode", "MODE", "deterministic", "deterministic or chaos (any case); chaos excludes --scenario")
	s.value(funcValue(func(v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || strings.ContainsAny(v, "xXpP_") {
			return fmt.Errorf("%q is not a number", v)
		}
		if f < 0 || f > 1 {
			return fmt.Errorf("%s is out of range (0–1)", v)
		}
		o.ErrorRate = f
		return nil
	}), "error-rate", "P", "0.2", "chaos only: probability 0–1 that a call fails")
	s.value(funcValue(func(v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("%s is out of range (a 64-bit signed integer)", v)
		}
		if err != nil {
			return fmt.Errorf("%q is not an integer", v)
		}
		o.Seed, o.SeedSet = n, true
		return nil
	}), "seed", "N", "random, printed", "chaos only: seed of the fault draws, a 64-bit integer")
	s.value(intValue{&o.RetryAfter, 1, 86400, "seconds"}, "retry-after", "SECONDS", "60", "F2 only: seconds announced by the 429 and checked, 1–86400")

	s.group = groupClassify
	s.list(&commaValue{p: &o.WriteTools, trim: true}, "write-tools", "GLOB,...", "write*, create_*, …", "globs (* only, case-sensitive) of write tools; replace the default patterns")
	s.list(&commaValue{p: &o.ReadTools, trim: true}, "read-tools", "GLOB,...", "", "extra globs of read tools (a tool matching both lists is a write)")
	s.list(&commaValue{p: &o.IdempotentTools, trim: true}, "idempotent-tools", "GLOB,...", "", "globs (* only, case-sensitive) of write tools whose repeats have no additional effect")
	s.toggle(&o.IgnoreIdempotentHint, "ignore-idempotent-hint", "the idempotentHint annotation counts for nothing (--idempotent-tools still apply)")
	s.list(&commaValue{p: &o.KeyFields, trim: true}, "key-fields", "NAME,...", "idempotency_key", "argument names of idempotency keys (any case, - same as _)")

	s.group = groupReport
	s.value(onOffValue(func(on bool) { o.AuditTools = on }), "audit-tools", "on|off", "on", "offer the audit tools cuonztech__get_report/get_score (any case)")
	s.text(&o.ReportFile, "report-file", "FILE", "none", "keep verdict, report, score and patches as JSON in FILE")
	s.text(&o.TraceFile, "trace", "FILE", "none", "record every judged event in FILE (JSON Lines, replaced) for agent-harness judge")
	s.value(durationValue{&o.ReportInterval, 0, 24 * time.Hour, "0–24h"}, "report-interval", "DURATION", "0: every event", "with --trace: rewrite the report file at most once per DURATION and at exit, 0–24h")
	s.toggle(&o.NoReplace, "no-replace", "keep a --report-file or --trace that exists (another proxy's): write the next free numbered names (report.2.json, trace.2.jsonl, …)")
	s.toggle(&o.RedactArguments, "redact-arguments", "show every argument value (key values too) as sha256:<hex> in the report and on stderr")

	s.group = groupPlugin
	s.list(funcValue(func(v string) error {
		if slices.Contains(o.Plugins, v) {
			return fmt.Errorf("%q given twice", v)
		}
		o.Plugins = append(o.Plugins, v)
		return nil
	}), "plugin", "PATH", "", "load a WebAssembly plugin, repeatable")
	s.list(funcValue(o.addPluginConfig), "plugin-config", "NAME=JSON", "", "JSON configuration of the plugin named NAME in its manifest, repeatable")
	limit := func(name, arg, usage, after string, set func(int64)) {
		l := plugin.LimitOf(name)
		if l == nil {
			panic("no plugin limit " + name)
		}
		s.value(limitValue{*l, set}, name, arg, limitDefault(*l), usage+", "+l.Range(l.LowestFlag())+after)
	}
	pluginLimit := func(name, arg, usage, after string) {
		l := plugin.LimitOf(name)
		limit(name, arg, usage, after, func(n int64) { l.Set(&o.PluginLimits, n) })
	}
	limit("plugin-timeout", "DURATION", "deadline of one plugin call", "", func(n int64) { o.PluginTimeout = time.Duration(n) })
	limit("plugin-memory", "MIB", "memory cap of a plugin instance", "", func(n int64) { o.PluginMemoryMiB = int(n) })
	s.text(&o.PluginCacheDir, "plugin-cache-dir", "DIR", "<user cache dir>/agent-harness/wazero", "where compiled plugins are cached")
	pluginLimit("plugin-start-timeout", "DURATION", "deadline for starting one plugin instance (its initialisation and init hook)", "")
	pluginLimit("plugin-input-limit", "BYTES", "largest input of one plugin call", "")
	pluginLimit("plugin-output-limit", "BYTES", "largest output of one plugin call", "")
	pluginLimit("plugin-log-limit", "BYTES", "plugin output (stdout, stderr, log) shown per plugin", "")
	pluginLimit("plugin-recycle-calls", "N", "replace a plugin instance after this many calls", "")
	pluginLimit("plugin-recycle-memory", "MIB", "replace a plugin instance whose memory reached this size", ", at most --plugin-memory")
	pluginLimit("plugin-max-failures", "N", "disable a plugin after this many consecutive failures", "")
	pluginLimit("plugin-pool-size", "N", "idle instances kept per plugin", ", at most --plugin-max-instances")
	pluginLimit("plugin-max-instances", "N", "instances of one plugin alive at once (more calls wait)", "")
	pluginLimit("plugin-max-delay", "DURATION", "longest delay a plugin fault may ask for (a longer one is a plugin failure)", "")

	s.group = groupState
	s.value(funcValue(func(v string) error {
		if strings.TrimSpace(v) == "" {
			return errors.New("the command is empty")
		}
		o.State.Command = v
		return nil
	}), "state-command", "CMD", "", "state probe: run `sh -c CMD` (in the upstream's directory and environment) before the upstream starts and after the session ends; it prints one JSON object of counters")
	s.list(funcValue(func(v string) error { return addStateMap(&o.State.Map, v) }), "state-map", "TOOL=COUNTER", "", "the probe's counter that the write tool's executions change, repeatable")
	s.toggle(&o.State.EveryWrite, "state-every-write", "take a snapshot at each report write too (costs one probe run per write)")
	s.value(durationValue{&o.State.Timeout, time.Millisecond, 10 * time.Minute, "1ms–10m"}, "state-timeout", "DURATION", "10s", "bound of one probe run; 1ms–10m")

	httpFlags(s, &o.HTTP)

	s.group = groupOps
	s.value(durationValue{&o.UpstreamTimeout, time.Millisecond, 10 * time.Minute, "1ms–10m"}, "upstream-timeout", "DURATION", "60s", "wait this long for an upstream answer, then the outcome is unknown; 1ms–10m")
	s.value(choiceValue(&o.OnCancel, "forward or swallow", "forward", "swallow"), "on-cancel", "forward|swallow", "forward", "the agent's cancellation of a call in flight: forward it to the upstream, or swallow it (a backend that commits anyway)")
	s.toggle(&o.Quiet, "quiet", "leave out the tool table and the lines on faults, violations and the result; keep warnings and errors")
	s.helpAndVersion("print this help and exit", "print the version and exit")
	return s
}

// setScenario stores a --scenario value: a built-in scenario in any case,
// or a plugin fault name (checked against the plugins later).
func (o *proxyOptions) setScenario(v string) error {
	if b, ok := fault.Lookup(v); ok && !b.Mode {
		o.Scenario = b.Name
		return nil
	}
	if !isName(v) {
		return fmt.Errorf("%q is not a scenario name (%s, or a plugin fault name of letters, digits, _ . -)", v, fault.ScenarioRange())
	}
	o.Scenario = v
	return nil
}

// addPluginConfig stores a --plugin-config NAME=JSON.
func (o *proxyOptions) addPluginConfig(v string) error {
	name, cfg, ok := strings.Cut(v, "=")
	if !ok || !isName(name) {
		return fmt.Errorf("%q is not NAME=JSON", v)
	}
	if !json.Valid([]byte(cfg)) {
		return fmt.Errorf("configuration of %q is not valid JSON", name)
	}
	if _, dup := o.PluginConfig[name]; dup {
		return fmt.Errorf("%q given twice", name)
	}
	o.PluginConfig[name] = json.RawMessage(cfg)
	return nil
}

// limitValue is the value of plugin.Limits' entry l, in its command-line
// range; set stores it.
type limitValue struct {
	l   plugin.Limit
	set func(int64)
}

func (v limitValue) Set(s string) error {
	n, err := parseLimit(v.l, s)
	if err == nil {
		v.set(n)
	}
	return err
}
func (limitValue) String() string { return "" }
func (limitValue) Type() string   { return "limit" }

// parseProxyFlags parses and validates the arguments after `proxy`.
//
// It returns errHelp or errVersion when asked for (they win over every other
// problem), or a usageError whose message is one line naming the flag. Checks
// run in three passes, each reporting its first problem: syntax (unknown
// flag, missing value, a value starting with --, a single-value flag given
// twice, positional arguments), then each value in command-line order, then
// the combinations (a flag of another mode, the required --upstream-command).
//
// A value starting with -- is never taken as a value: `--report-file
// --scenario F1` is "flag --report-file needs a value"; write
// `--report-file=--x`. Values starting with a single - are taken
// (`--upstream-arg -y`). A single-value flag given twice is an error even
// with the same value, so a command line never means two things. List flags
// (comma lists and repeatable flags) may be given several times and append.
func parseProxyFlags(args []string) (proxyOptions, error) {
	o := proxyOptions{
		Chaos:          harness.Chaos{Mode: "deterministic", ErrorRate: 0.2},
		RetryAfter:     60,
		Classification: harness.Classification{KeyFields: []string{"idempotency_key"}},
		AuditTools:     true,
		pluginOptions: pluginOptions{
			PluginConfig:    map[string]json.RawMessage{},
			PluginTimeout:   plugin.DefaultTimeout,
			PluginMemoryMiB: plugin.DefaultMemoryMiB,
		},
		upstreamOptions: upstreamOptions{UpstreamTimeout: 60 * time.Second},
		OnCancel:        "forward",
		HTTP:            httpOptions{ListenPath: "/mcp", FaultLayer: "tool"},
	}
	if dir, err := userCacheDir(); err == nil && dir != "" {
		o.PluginCacheDir = filepath.Join(dir, "agent-harness", "wazero")
	}
	p := &parseState{envKeys: map[string]bool{}}
	s := proxyFlagSet(&o, p)
	// The upstream command starts at the first word that is not a flag
	// (or after --): no positional word is left among the flags.
	flags, command, where := s.splitCommand(args)
	if _, err := s.parse(flags); err != nil {
		return proxyOptions{}, err
	}
	o.UpstreamArgs = append(p.upstreamArgsList, p.upstreamArg...)
	o.UpstreamEnv = append(p.envList, p.envVar...)
	if where != "" {
		if err := useCommand(&o, s, command, where); err != nil {
			return proxyOptions{}, inCmd("proxy", err)
		}
	}
	if err := checkProxyCombinations(&o, s); err != nil {
		return proxyOptions{}, inCmd("proxy", err)
	}
	return o, nil
}

// checkProxyCombinations checks what no single flag can: flags that belong
// to another mode, scenario names, and the required flag.
func checkProxyCombinations(o *proxyOptions, s *flagSet) error {
	seen := s.given
	chaos := o.Mode == "chaos"
	switch {
	case chaos && o.Scenario != "":
		return usagef("flag --scenario: not with --mode chaos (chaos replaces the scenarios)")
	case strings.EqualFold(o.Scenario, "chaos"):
		return usagef("flag --scenario: chaos is a mode: use --mode chaos")
	case o.Scenario != "" && !isBuiltinScenario(o.Scenario) && len(o.Plugins) == 0:
		return usagef("flag --scenario: %q is not a scenario (%s; other names need a --plugin that declares them)", o.Scenario, fault.ScenarioRange())
	case seen("error-rate") && !chaos:
		return usagef("flag --error-rate: only with --mode chaos")
	case seen("seed") && !chaos:
		return usagef("flag --seed: only with --mode chaos")
	case seen("retry-after") && o.Scenario != "F2":
		return usagef("flag --retry-after: only with --scenario F2")
	case o.ReportInterval > 0 && o.TraceFile == "":
		return usagef("flag --report-interval: only with --trace (the trace keeps every event while the report file waits)")
	case o.NoReplace && o.ReportFile == "" && o.TraceFile == "":
		return usagef("flag --no-replace: only with --report-file or --trace")
	}
	if o.State.Command == "" {
		for _, name := range []string{"state-map", "state-every-write", "state-timeout"} {
			if seen(name) {
				return usagef("flag --%s: only with --state-command", name)
			}
		}
	}
	if len(o.Plugins) == 0 {
		if name := s.givenIn(groupPlugin, "plugin"); name != "" {
			return usagef("flag --%s: only with --plugin", name)
		}
	}
	if err := checkHTTPCombinations(o, s); err != nil {
		return err
	}
	l := o.PluginLimits
	maxInstances := l.MaxInstances
	if maxInstances == 0 {
		maxInstances = plugin.DefaultMaxInstances
	}
	switch {
	case l.RecycleMemoryMiB > o.PluginMemoryMiB:
		return usagef("flag --plugin-recycle-memory: %d MiB is above --plugin-memory (%d MiB)", l.RecycleMemoryMiB, o.PluginMemoryMiB)
	case l.PoolSize > maxInstances:
		return usagef("flag --plugin-pool-size: %d is above --plugin-max-instances (%d)", l.PoolSize, maxInstances)
	}
	if o.HTTP.UpstreamURL != "" {
		return nil
	}
	if o.UpstreamCommand == "" {
		return usagef("flag --upstream-command is required (or give the command after --: agent-harness proxy [flags] -- CMD [ARGS...])")
	}
	return checkCommandWord(o)
}

func isBuiltinScenario(s string) bool {
	return fault.IsScenario(s)
}

// isName reports whether s is a plugin or scenario name: [A-Za-z0-9_.-]+.
func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// envList1 adds one --upstream-env value.
func (p *parseState) envList1(v string) error {
	items, err := commaList(v, false)
	if err != nil {
		return err
	}
	for _, item := range items {
		kv, err := p.envEntry(item)
		if err != nil {
			return err
		}
		p.envList = append(p.envList, kv)
	}
	return nil
}

// envEntry checks one KEY=VALUE; a KEY may be set once across
// --upstream-env and --upstream-env-var.
func (p *parseState) envEntry(kv string) (string, error) {
	key, _, ok := strings.Cut(kv, "=")
	switch {
	case !ok:
		return "", fmt.Errorf("%q is not KEY=VALUE", kv)
	case key == "":
		return "", fmt.Errorf("%q has an empty KEY", kv)
	case p.envKeys[key]:
		return "", fmt.Errorf("KEY %q given twice", key)
	}
	p.envKeys[key] = true
	return kv, nil
}

// limitDefault is a limit's default as the usage shows it.
func limitDefault(l plugin.Limit) string {
	switch {
	case l.Flag == "plugin-recycle-memory":
		return "half of --plugin-memory"
	case l.Duration:
		return plugin.ShortDuration(time.Duration(l.Default))
	}
	return strconv.FormatInt(l.Default, 10)
}

// parseLimit parses v as the value of l's flag, in its command-line range.
func parseLimit(l plugin.Limit, v string) (int64, error) {
	lo := l.LowestFlag()
	if l.Duration {
		d, err := durationInRange(v, time.Duration(lo), time.Duration(l.Max), l.Range(lo))
		return int64(d), err
	}
	n, err := intInRange(v, int(lo), int(l.Max), l.Unit)
	return int64(n), err
}

// quoteArg shows a command-line word as is when it is plain, Go-quoted when
// it has spaces, control characters or invalid UTF-8, so the message stays
// one unambiguous line.
func quoteArg(s string) string {
	if q := strconv.Quote(s); q[1:len(q)-1] != s || strings.ContainsAny(s, " \t") || s == "" {
		return q
	}
	return s
}

// proxyUsage is the text of `agent-harness proxy --help`.
func proxyUsage() string {
	var b strings.Builder
	b.WriteString(`Usage: agent-harness proxy [flags] -- CMD [ARGS...]
       agent-harness proxy [flags] CMD [ARGS...]
       agent-harness proxy --upstream-command CMD [--upstream-arg ARG ...] [flags]

Starts CMD as the upstream MCP server and serves MCP on stdin/stdout in front
of it, injecting the chosen scenario into the agent's write calls and judging
whether a write was executed twice. Logs and the tool classification go to
stderr; stdout carries only MCP. With --listen the agent side is MCP Streamable
HTTP instead; with --upstream-url the upstream is.

`)
	b.WriteString(proxyFlagSet(&proxyOptions{}, &parseState{}).usage())
	b.WriteString(`Everything after -- is the upstream command and its arguments, taken as
they are (not together with --upstream-command, --upstream-arg(s)). Without
--, the first word that is neither a flag nor a flag's value starts the
command, and every word after it is the upstream's, flags included (so
clients that take the first -- for themselves, such as the MCP Inspector's
CLI, work).
Both --flag value and --flag=value work. A value starting with -- is never
taken as a value: write --flag=--value. Flags taking one value may be given
once; list and repeatable flags add up.

Exit codes (the verdict is in the report, not in the exit code):
  0      the client closed the session; the report is finished
  128+N  stopped by signal N (SIGHUP 129, SIGINT 130, SIGTERM 143); the report
         is finished
  141    the client stopped reading (broken pipe)
  1      the setup failed, or the report file or trace could not be written
  2      usage error: nothing started, the report file untouched
`)
	return b.String()
}

// addStateMap adds one --state-map TOOL=COUNTER to m (also judge's): a
// tool mapped twice is an error, since its effects would be two counters'.
func addStateMap(m *map[string]string, v string) error {
	tool, counter, err := state.ParseMap(v)
	if err != nil {
		return err
	}
	if *m == nil {
		*m = map[string]string{}
	}
	if prev, ok := (*m)[tool]; ok {
		return fmt.Errorf("tool %q is mapped twice (to %q and %q)", tool, prev, counter)
	}
	(*m)[tool] = counter
	return nil
}
