package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
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

	// Scenario is "" (plain relay), "F1".."F5" (normalised from any case),
	// or, when Plugins is not empty, a plugin fault name to check against
	// the plugin manifests.
	Scenario string
	// Mode is "deterministic" (default) or "chaos".
	Mode string
	// ErrorRate is the chaos failure probability, 0–1 (default 0.2).
	ErrorRate float64
	// Seed seeds the chaos draws when SeedSet; otherwise the proxy draws a
	// random seed and prints it.
	Seed    int64
	SeedSet bool
	// RetryAfter is the F2 retry_after in seconds, 1–86400 (default 60).
	RetryAfter int

	// WriteTools are the --write-tools globs; nil = default write patterns.
	WriteTools []string
	// ReadTools are the extra --read-tools globs.
	ReadTools []string
	// IdempotentTools are the --idempotent-tools globs (behaviour §4.8).
	IdempotentTools []string
	// IgnoreIdempotentHint: --ignore-idempotent-hint was given.
	IgnoreIdempotentHint bool
	// KeyFields are the key-field names (default ["idempotency_key"]).
	KeyFields []string

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

	// UpstreamTimeout bounds the wait for an upstream answer (default 60s).
	UpstreamTimeout time.Duration
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
	// ps is what the setters need while parsing; nil after.
	ps *parseState
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

// proxyFlag is one proxy flag (cmdflags.go).
type proxyFlag = flagSpec[proxyOptions]

// parseState holds what the flag setters need beyond proxyOptions.
type parseState struct {
	upstreamArgsList []string // --upstream-args
	upstreamArg      []string // --upstream-arg
	envList          []string // --upstream-env
	envVar           []string // --upstream-env-var
	envKeys          map[string]bool
	keyFieldsSet     bool // --key-fields was given: later uses append
}

var proxyFlags = []proxyFlag{
	{name: "upstream-command", arg: "CMD", group: groupUpstream,
		usage: "command that starts the upstream MCP server (required)",
		set: func(o *proxyOptions, v string) error {
			o.UpstreamCommand = v
			return nil
		}},
	{name: "upstream-arg", arg: "ARG", repeatable: true, group: groupUpstream,
		usage: "one argument of the upstream command, repeatable, may contain commas",
		set: func(o *proxyOptions, v string) error {
			p := o.ps
			p.upstreamArg = append(p.upstreamArg, v)
			return nil
		}},
	{name: "upstream-args", arg: "A,B,...", repeatable: true, group: groupUpstream,
		usage: "comma-separated arguments (no commas inside), before the --upstream-arg values",
		set: func(o *proxyOptions, v string) error {
			p := o.ps
			items, err := commaList(v, false)
			p.upstreamArgsList = append(p.upstreamArgsList, items...)
			return err
		}},
	{name: "upstream-cwd", arg: "DIR", group: groupUpstream, def: "the proxy's",
		usage: "working directory of the upstream",
		set: func(o *proxyOptions, v string) error {
			o.UpstreamCwd = v
			return nil
		}},
	{name: "upstream-env-var", arg: "KEY=VALUE", repeatable: true, group: groupUpstream,
		usage: "environment variable for the upstream, repeatable; VALUE may contain , and =",
		set: func(o *proxyOptions, v string) error {
			p := o.ps
			kv, err := p.envEntry(v)
			if err == nil {
				p.envVar = append(p.envVar, kv)
			}
			return err
		}},
	{name: "upstream-env", arg: "K=V,...", repeatable: true, group: groupUpstream,
		usage: "comma-separated KEY=VALUE pairs for the upstream",
		set: func(o *proxyOptions, v string) error {
			p := o.ps
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
		}},

	{name: "scenario", arg: "ID", group: groupScenario, def: "none: plain relay",
		usage: fault.ScenarioRange() + " (any case), or a fault name declared by a --plugin",
		set: func(o *proxyOptions, v string) error {
			if b, ok := fault.Lookup(v); ok && !b.Mode {
				o.Scenario = b.Name
				return nil
			}
			if !isName(v) {
				return fmt.Errorf("%q is not a scenario name (%s, or a plugin fault name of letters, digits, _ . -)", v, fault.ScenarioRange())
			}
			o.Scenario = v
			return nil
		}},
	{name: "mode", arg: "MODE", group: groupScenario, def: "deterministic",
		usage: "deterministic or chaos (any case); chaos excludes --scenario",
		set: func(o *proxyOptions, v string) error {
			switch m := strings.ToLower(v); m {
			case "deterministic", "chaos":
				o.Mode = m
				return nil
			}
			return fmt.Errorf("%q is not a mode (deterministic or chaos)", v)
		}},
	{name: "error-rate", arg: "P", group: groupScenario, def: "0.2",
		usage: "chaos only: probability 0–1 that a call fails",
		set: func(o *proxyOptions, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || strings.ContainsAny(v, "xXpP_") {
				return fmt.Errorf("%q is not a number", v)
			}
			if f < 0 || f > 1 {
				return fmt.Errorf("%s is out of range (0–1)", v)
			}
			o.ErrorRate = f
			return nil
		}},
	{name: "seed", arg: "N", group: groupScenario, def: "random, printed",
		usage: "chaos only: seed of the fault draws, a 64-bit integer",
		set: func(o *proxyOptions, v string) error {
			n, err := strconv.ParseInt(v, 10, 64)
			if errors.Is(err, strconv.ErrRange) {
				return fmt.Errorf("%s is out of range (a 64-bit signed integer)", v)
			}
			if err != nil {
				return fmt.Errorf("%q is not an integer", v)
			}
			o.Seed, o.SeedSet = n, true
			return nil
		}},
	{name: "retry-after", arg: "SECONDS", group: groupScenario, def: "60",
		usage: "F2 only: seconds announced by the 429 and checked, 1–86400",
		set:   setInt(1, 86400, "seconds", func(o *proxyOptions) *int { return &o.RetryAfter })},

	{name: "write-tools", arg: "GLOB,...", repeatable: true, group: groupClassify, def: "write*, create_*, …",
		usage: "globs (* only, case-sensitive) of write tools; replace the default patterns",
		set: func(o *proxyOptions, v string) error {
			items, err := commaList(v, true)
			o.WriteTools = append(o.WriteTools, items...)
			return err
		}},
	{name: "read-tools", arg: "GLOB,...", repeatable: true, group: groupClassify,
		usage: "extra globs of read tools (a tool matching both lists is a write)",
		set: func(o *proxyOptions, v string) error {
			items, err := commaList(v, true)
			o.ReadTools = append(o.ReadTools, items...)
			return err
		}},
	{name: "idempotent-tools", arg: "GLOB,...", repeatable: true, group: groupClassify,
		usage: "globs (* only, case-sensitive) of write tools whose repeats have no additional effect",
		set: func(o *proxyOptions, v string) error {
			items, err := commaList(v, true)
			o.IdempotentTools = append(o.IdempotentTools, items...)
			return err
		}},
	{name: "ignore-idempotent-hint", group: groupClassify,
		usage: "the idempotentHint annotation counts for nothing (--idempotent-tools still apply)",
		set: func(o *proxyOptions, _ string) error {
			o.IgnoreIdempotentHint = true
			return nil
		}},
	{name: "key-fields", arg: "NAME,...", repeatable: true, group: groupClassify, def: "idempotency_key",
		usage: "argument names of idempotency keys (any case, - same as _)",
		set: func(o *proxyOptions, v string) error {
			p := o.ps
			items, err := commaList(v, true)
			if !p.keyFieldsSet {
				o.KeyFields, p.keyFieldsSet = nil, true // the first use replaces the default
			}
			o.KeyFields = append(o.KeyFields, items...)
			return err
		}},

	{name: "audit-tools", arg: "on|off", group: groupReport, def: "on",
		usage: "offer the audit tools cuonztech__get_report/get_score (any case)",
		set: func(o *proxyOptions, v string) error {
			switch strings.ToLower(v) {
			case "on":
				o.AuditTools = true
			case "off":
				o.AuditTools = false
			default:
				return fmt.Errorf("%q is not on or off", v)
			}
			return nil
		}},
	{name: "report-file", arg: "FILE", group: groupReport, def: "none",
		usage: "keep verdict, report, score and patches as JSON in FILE",
		set: func(o *proxyOptions, v string) error {
			o.ReportFile = v
			return nil
		}},
	{name: "trace", arg: "FILE", group: groupReport, def: "none",
		usage: "record every judged event in FILE (JSON Lines, replaced) for agent-harness judge",
		set: func(o *proxyOptions, v string) error {
			o.TraceFile = v
			return nil
		}},
	{name: "report-interval", arg: "DURATION", group: groupReport, def: "0: every event",
		usage: "with --trace: rewrite the report file at most once per DURATION and at exit, 0–24h",
		set:   setDuration(0, 24*time.Hour, "0–24h", func(o *proxyOptions) *time.Duration { return &o.ReportInterval })},
	{name: "no-replace", group: groupReport,
		usage: "keep a --report-file or --trace that exists (another proxy's): write the next free numbered names (report.2.json, trace.2.jsonl, …)",
		set: func(o *proxyOptions, _ string) error {
			o.NoReplace = true
			return nil
		}},
	{name: "redact-arguments", group: groupReport,
		usage: "show every argument value (key values too) as sha256:<hex> in the report and on stderr",
		set: func(o *proxyOptions, _ string) error {
			o.RedactArguments = true
			return nil
		}},

	{name: "plugin", arg: "PATH", repeatable: true, group: groupPlugin,
		usage: "load a WebAssembly plugin, repeatable",
		set: func(o *proxyOptions, v string) error {
			for _, p := range o.Plugins {
				if p == v {
					return fmt.Errorf("%q given twice", v)
				}
			}
			o.Plugins = append(o.Plugins, v)
			return nil
		}},
	{name: "plugin-config", arg: "NAME=JSON", repeatable: true, group: groupPlugin,
		usage: "JSON configuration of the plugin named NAME in its manifest, repeatable",
		set: func(o *proxyOptions, v string) error {
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
		}},
	pluginLimitFlag("plugin-timeout", "DURATION", "deadline of one plugin call", ""),
	pluginLimitFlag("plugin-memory", "MIB", "memory cap of a plugin instance", ""),
	{name: "plugin-cache-dir", arg: "DIR", group: groupPlugin, def: "<user cache dir>/agent-harness/wazero",
		usage: "where compiled plugins are cached",
		set: func(o *proxyOptions, v string) error {
			o.PluginCacheDir = v
			return nil
		}},
	pluginLimitFlag("plugin-start-timeout", "DURATION", "deadline for starting one plugin instance (its initialisation and init hook)", ""),
	pluginLimitFlag("plugin-input-limit", "BYTES", "largest input of one plugin call", ""),
	pluginLimitFlag("plugin-output-limit", "BYTES", "largest output of one plugin call", ""),
	pluginLimitFlag("plugin-log-limit", "BYTES", "plugin output (stdout, stderr, log) shown per plugin", ""),
	pluginLimitFlag("plugin-recycle-calls", "N", "replace a plugin instance after this many calls", ""),
	pluginLimitFlag("plugin-recycle-memory", "MIB", "replace a plugin instance whose memory reached this size", ", at most --plugin-memory"),
	pluginLimitFlag("plugin-max-failures", "N", "disable a plugin after this many consecutive failures", ""),
	pluginLimitFlag("plugin-pool-size", "N", "idle instances kept per plugin", ", at most --plugin-max-instances"),
	pluginLimitFlag("plugin-max-instances", "N", "instances of one plugin alive at once (more calls wait)", ""),
	pluginLimitFlag("plugin-max-delay", "DURATION", "longest delay a plugin fault may ask for (a longer one is a plugin failure)", ""),

	{name: "state-command", arg: "CMD", group: groupState,
		usage: "state probe: run `sh -c CMD` (in the upstream's directory and environment) before the upstream starts and after the session ends; it prints one JSON object of counters",
		set: func(o *proxyOptions, v string) error {
			if strings.TrimSpace(v) == "" {
				return errors.New("the command is empty")
			}
			o.State.Command = v
			return nil
		}},
	{name: "state-map", arg: "TOOL=COUNTER", repeatable: true, group: groupState,
		usage: "the probe's counter that the write tool's executions change, repeatable",
		set:   func(o *proxyOptions, v string) error { return addStateMap(&o.State.Map, v) }},
	{name: "state-every-write", group: groupState,
		usage: "take a snapshot at each report write too (costs one probe run per write)",
		set: func(o *proxyOptions, _ string) error {
			o.State.EveryWrite = true
			return nil
		}},
	{name: "state-timeout", arg: "DURATION", group: groupState, def: "10s",
		usage: "bound of one probe run; 1ms–10m",
		set:   setDuration(time.Millisecond, 10*time.Minute, "1ms–10m", func(o *proxyOptions) *time.Duration { return &o.State.Timeout })},

	{name: "upstream-timeout", arg: "DURATION", group: groupOps, def: "60s",
		usage: "wait this long for an upstream answer, then the outcome is unknown; 1ms–10m",
		set:   setDuration(time.Millisecond, 10*time.Minute, "1ms–10m", func(o *proxyOptions) *time.Duration { return &o.UpstreamTimeout })},
	{name: "on-cancel", arg: "forward|swallow", group: groupOps, def: "forward",
		usage: "the agent's cancellation of a call in flight: forward it to the upstream, or swallow it (a backend that commits anyway)",
		set: func(o *proxyOptions, v string) error {
			switch l := strings.ToLower(v); l {
			case "forward", "swallow":
				o.OnCancel = l
				return nil
			}
			return fmt.Errorf("%q is not forward or swallow", v)
		}},
	{name: "quiet", group: groupOps,
		usage: "leave out the tool table and the lines on faults, violations and the result; keep warnings and errors",
		set: func(o *proxyOptions, _ string) error {
			o.Quiet = true
			return nil
		}},
	{name: "help", group: groupOps, usage: "print this help and exit"},
	{name: "version", group: groupOps, usage: "print the version and exit"},
}

// The HTTP flags go before the Operations group, --upstream-url and its
// headers after --upstream-command.
func init() {
	proxyFlags = append(proxyFlags[:1:1], append(append([]proxyFlag(nil), upstreamURLFlags...), proxyFlags[1:]...)...)
	at := len(proxyFlags)
	for i, f := range proxyFlags {
		if f.group == groupOps {
			at = i
			break
		}
	}
	proxyFlags = append(proxyFlags[:at:at], append(append([]proxyFlag(nil), httpFlags...), proxyFlags[at:]...)...)
}

func lookupProxyFlag(name string) *proxyFlag {
	for i := range proxyFlags {
		if proxyFlags[i].name == name {
			return &proxyFlags[i]
		}
	}
	return nil
}

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
	all := args
	args, command, hasCommand := splitProxyCommand(args)
	where := "after the flags"
	if len(args) < len(all) && all[len(args)] == "--" {
		where = "after --"
	}
	o := proxyOptions{
		Mode:            "deterministic",
		ErrorRate:       0.2,
		RetryAfter:      60,
		KeyFields:       []string{"idempotency_key"},
		AuditTools:      true,
		PluginConfig:    map[string]json.RawMessage{},
		PluginTimeout:   plugin.DefaultTimeout,
		PluginMemoryMiB: plugin.DefaultMemoryMiB,
		UpstreamTimeout: 60 * time.Second,
		OnCancel:        "forward",
		HTTP:            httpOptions{ListenPath: "/mcp", FaultLayer: "tool"},
	}
	if dir, err := userCacheDir(); err == nil && dir != "" {
		o.PluginCacheDir = filepath.Join(dir, "agent-harness", "wazero")
	}
	p := &parseState{envKeys: map[string]bool{}}
	o.ps = p
	// splitProxyCommand left no positional word among the flags.
	cl, err := parseFlags(proxyFlags, &o, flagRules{cmd: "proxy"}, args)
	o.ps = nil
	if err != nil {
		return proxyOptions{}, err
	}
	o.UpstreamArgs = append(p.upstreamArgsList, p.upstreamArg...)
	o.UpstreamEnv = append(p.envList, p.envVar...)
	if hasCommand {
		if err := useCommand(&o, cl.seen, command, where); err != nil {
			return proxyOptions{}, inCmd("proxy", err)
		}
	}
	if err := checkProxyCombinations(&o, cl.seen); err != nil {
		return proxyOptions{}, inCmd("proxy", err)
	}
	return o, nil
}

// checkProxyCombinations checks what no single flag can: flags that belong
// to another mode, scenario names, and the required flag.
func checkProxyCombinations(o *proxyOptions, seen map[string]bool) error {
	chaos := o.Mode == "chaos"
	switch {
	case chaos && o.Scenario != "":
		return usagef("flag --scenario: not with --mode chaos (chaos replaces the scenarios)")
	case strings.EqualFold(o.Scenario, "chaos"):
		return usagef("flag --scenario: chaos is a mode: use --mode chaos")
	case o.Scenario != "" && !isBuiltinScenario(o.Scenario) && len(o.Plugins) == 0:
		return usagef("flag --scenario: %q is not a scenario (%s; other names need a --plugin that declares them)", o.Scenario, fault.ScenarioRange())
	case seen["error-rate"] && !chaos:
		return usagef("flag --error-rate: only with --mode chaos")
	case seen["seed"] && !chaos:
		return usagef("flag --seed: only with --mode chaos")
	case seen["retry-after"] && o.Scenario != "F2":
		return usagef("flag --retry-after: only with --scenario F2")
	case o.ReportInterval > 0 && o.TraceFile == "":
		return usagef("flag --report-interval: only with --trace (the trace keeps every event while the report file waits)")
	case o.NoReplace && o.ReportFile == "" && o.TraceFile == "":
		return usagef("flag --no-replace: only with --report-file or --trace")
	}
	if o.State.Command == "" {
		for _, name := range []string{"state-map", "state-every-write", "state-timeout"} {
			if seen[name] {
				return usagef("flag --%s: only with --state-command", name)
			}
		}
	}
	if len(o.Plugins) == 0 {
		for _, f := range proxyFlags {
			if f.group == groupPlugin && f.name != "plugin" && seen[f.name] {
				return usagef("flag --%s: only with --plugin", f.name)
			}
		}
	}
	if err := checkHTTPCombinations(o, seen); err != nil {
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
	if !seen["upstream-command"] {
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

// commaList splits a comma-separated value; an empty element is an error.
// trim removes spaces around elements (globs and names, not arguments or
// environment values).
func commaList(v string, trim bool) ([]string, error) {
	items := strings.Split(v, ",")
	for i, item := range items {
		if trim {
			item = strings.TrimSpace(item)
			items[i] = item
		}
		if item == "" {
			return nil, fmt.Errorf("empty element in %q", v)
		}
	}
	return items, nil
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

// pluginLimitFlag is the flag of plugin.Limits' entry name: its range,
// default and messages come from that one table. --plugin-timeout and
// --plugin-memory are stored in PluginTimeout and PluginMemoryMiB, the
// others in PluginLimits.
func pluginLimitFlag(name, arg, usage, after string) proxyFlag {
	l := plugin.LimitOf(name)
	if l == nil {
		panic("no plugin limit " + name)
	}
	f := proxyFlag{name: name, arg: arg, group: groupPlugin, def: limitDefault(*l),
		usage: usage + ", " + l.Range(l.LowestFlag()) + after}
	f.set = func(o *proxyOptions, v string) error {
		n, err := parseLimit(*l, v)
		if err != nil {
			return err
		}
		switch name {
		case "plugin-timeout":
			o.PluginTimeout = time.Duration(n)
		case "plugin-memory":
			o.PluginMemoryMiB = int(n)
		default:
			l.Set(&o.PluginLimits, n)
		}
		return nil
	}
	return f
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

// setInt is the set function of a flag whose value is a whole number from
// lo to hi (in unit), stored in the field that field points to.
func setInt(lo, hi int, unit string, field func(*proxyOptions) *int) func(*proxyOptions, string) error {
	return func(o *proxyOptions, v string) error {
		n, err := intInRange(v, lo, hi, unit)
		*field(o) = n
		return err
	}
}

// setDuration is the set function of a flag whose value is a Go duration
// from lo to hi (rng names the range in messages).
func setDuration(lo, hi time.Duration, rng string, field func(*proxyOptions) *time.Duration) func(*proxyOptions, string) error {
	return func(o *proxyOptions, v string) error {
		d, err := durationInRange(v, lo, hi, rng)
		*field(o) = d
		return err
	}
}

func intInRange(v string, lo, hi int, unit string) (int, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("%s is out of range (%d–%d %s)", v, lo, hi, unit)
	case err != nil:
		return 0, fmt.Errorf("%q is not a whole number of %s", v, unit)
	case n < int64(lo) || n > int64(hi):
		return 0, fmt.Errorf("%s is out of range (%d–%d %s)", v, lo, hi, unit)
	}
	return int(n), nil
}

func durationInRange(v string, lo, hi time.Duration, rng string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (e.g. 100ms, 2s)", v)
	}
	if d < lo || d > hi {
		return 0, fmt.Errorf("%s is out of range (%s)", v, rng)
	}
	return d, nil
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
	b.WriteString(flagUsage(proxyFlags))
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
