// Package harness composes one proxy session from a Config: the fault, the
// judge, the pipeline (report file, trace, audit tools), the plugins and
// the relay's options, and runs it (Run). `agent-harness proxy` maps its
// flags onto a Config; the benchmark (selftest), the demo server and
// `agent-harness judge` (a Config from a trace's header, Rejudge) build
// their fault, judge and classification from the same methods, so the
// four cannot drift apart.
package harness

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/pipeline"
	"github.com/cuonztech/agent-harness/internal/plugin"
	"github.com/cuonztech/agent-harness/internal/relay"
	"github.com/cuonztech/agent-harness/internal/report"
	"github.com/cuonztech/agent-harness/internal/trace"
)

// Config is everything that decides how one session is composed and
// judged. The zero value is a plain relay judged as "proxy" with the
// default classification; every field is already validated (the CLI's
// flags, a trace's header).
type Config struct {
	// Kind is the judge's kind: "proxy" (default) or "demo".
	Kind string

	// Upstream starts the upstream MCP server on stdio, unless
	// HTTP.UpstreamURL is set.
	Upstream relay.CommandUpstream
	// UpstreamTimeout bounds the wait for an upstream answer (0: the
	// relay's default).
	UpstreamTimeout time.Duration

	// Scenario is "" (plain relay), "F1".."F5", or a plugin fault name.
	Scenario string
	// Chaos is the mode and its draws (Mode, ErrorRate, Seed, SeedSet).
	Chaos
	// RetryAfter is the F2 retry_after in seconds (0: the fault's default).
	RetryAfter int

	// Classification is the classification chain's explicit rules and
	// the idempotency key-field names.
	Classification
	// RedactArguments shows argument values as hashes (behaviour §5.4).
	RedactArguments bool

	// AuditTools offers the agent cuonztech__get_report and get_score.
	AuditTools bool
	// ReportFile is the report file's path; "" = none.
	ReportFile string
	// TraceFile is the trace's path; "" = no trace (behaviour §7).
	TraceFile string
	// ReportInterval rewrites the report file at most this often (only
	// with a trace); 0 = at every event.
	ReportInterval time.Duration
	// Quiet drops the startup table and the fired, violation and summary
	// lines; warnings and errors stay (behaviour §2.8).
	Quiet bool
	// OnCancel is what the agent's cancellation of a call in flight does
	// (--on-cancel, behaviour §2.6): "forward" ("" too) sends it on to the
	// upstream, "swallow" keeps it from the upstream.
	OnCancel string

	// Plugins are the WebAssembly plugin paths in order, PluginConfig each
	// plugin's configuration by manifest name, PluginOptions their limits
	// (KeyFields, Log and OnFailure are filled in by LoadPlugins).
	Plugins       []string
	PluginConfig  map[string]json.RawMessage
	PluginOptions plugin.Options

	// HTTP are the Streamable HTTP settings (behaviour §8).
	HTTP HTTP

	// State is the state probe (behaviour §16); no Command = none.
	State State
}

// Chaos is how faults are drawn: the mode and, in chaos mode, the failure
// probability and the seed. The proxy's flags fill it as it is.
type Chaos struct {
	// Mode is pipeline.ModeDeterministic ("" too) or pipeline.ModeChaos.
	Mode string
	// ErrorRate is the chaos failure probability, 0–1.
	ErrorRate float64
	// Seed seeds the chaos draws when SeedSet; otherwise a random seed is
	// drawn and printed.
	Seed    int64
	SeedSet bool
}

// Classification are the classification chain's explicit rules
// (behaviour §4.8) and the idempotency key-field names. The proxy's
// classification flags fill it as it is.
type Classification struct {
	// WriteTools are the write-tool globs; nil = the default write
	// patterns.
	WriteTools []string
	// ReadTools are extra read-tool globs (a tool matching both lists is
	// a write).
	ReadTools []string
	// IdempotentTools are the globs of idempotent write tools.
	IdempotentTools []string
	// IgnoreIdempotentHint: the idempotentHint annotation counts for
	// nothing (IdempotentTools still apply).
	IgnoreIdempotentHint bool
	// KeyFields are the idempotency key-field names.
	KeyFields []string
}

// State configures the state probe of a session (behaviour §16).
type State struct {
	// Command runs as `sh -c Command` in the upstream's working directory
	// and environment; "" = no probe.
	Command string
	// Map says which counter each write tool's executions change
	// (--state-map TOOL=COUNTER).
	Map map[string]string
	// EveryWrite takes a snapshot at each report write too.
	EveryWrite bool
	// Timeout bounds one probe run (0: state.DefaultTimeout).
	Timeout time.Duration
}

// HTTP are the Streamable HTTP settings of a session.
type HTTP struct {
	// Listen is the address to serve MCP Streamable HTTP on ("" = stdio),
	// normalised to HOST:PORT (loopback for PORT and :PORT).
	Listen string
	// ListenPath is the MCP endpoint path (default /mcp).
	ListenPath string
	// ListenAllowRemote: a non-loopback --listen address is allowed.
	ListenAllowRemote bool
	// ListenAllowOrigins are extra Origin values served.
	ListenAllowOrigins []string
	// ExitWhenIdle, when positive, ends the proxy once no session has been
	// open for that long.
	ExitWhenIdle time.Duration
	// MaxSessions is the most agent sessions at once (0: the default, 32).
	MaxSessions int
	// SessionIdle ends a session idle that long (0: the default, 10m).
	SessionIdle time.Duration
	// FaultLayer is "tool" (default) or "http".
	FaultLayer string
	// GhostHold is how long --fault-layer http holds F1's answer before
	// dropping the connection.
	GhostHold time.Duration

	// UpstreamPerSession: with --listen and a stdio upstream, every agent
	// session starts its own upstream process (default: all share one,
	// behaviour §8.3).
	UpstreamPerSession bool

	// UpstreamURL is the upstream's Streamable HTTP endpoint ("" = the
	// upstream is a command on stdio).
	UpstreamURL string
	// UpstreamHeaders are sent with every upstream request: the
	// --upstream-header values and the --upstream-header-env values (read
	// from the environment at parse time; never printed).
	UpstreamHeaders http.Header
}

// FromSettings is the Config a trace's header records (what `agent-harness
// judge` re-judges with unless told otherwise).
func FromSettings(s trace.Settings) Config {
	return Config{
		Kind: s.Kind, Scenario: s.Scenario, Chaos: Chaos{Mode: s.Mode}, RetryAfter: s.RetryAfter,
		Classification: Classification{KeyFields: s.KeyFields, WriteTools: s.WriteTools, ReadTools: s.ReadTools,
			IdempotentTools: s.IdempotentTools, IgnoreIdempotentHint: s.IgnoreIdempotentHint},
		RedactArguments: s.RedactArguments, Plugins: s.Plugins, PluginConfig: s.PluginConfig,
		State: State{Command: s.StateCommand, Map: s.StateMap},
	}
}

// keyFields are the parsed key-field names.
func (c Config) keyFields() canon.KeyFields { return canon.ParseKeyFields(c.KeyFields) }

// JudgeConfig is the judge's configuration for the session's scenario name
// (the fault's, "chaos", or ""), the plugins' hooks of ex, and the time
// the run started (zero: the first event's).
func (c Config) JudgeConfig(scenario string, ex Extras, start time.Time) judge.Config {
	kind := c.Kind
	if kind == "" {
		kind = "proxy"
	}
	return judge.Config{
		KeyFields:    c.keyFields(),
		Scenario:     scenario,
		Kind:         kind,
		Equivalences: ex.Equivalences,
		PairCheckers: ex.PairCheckers,
		PluginStatus: ex.PluginStatus,

		Start:           start,
		RedactArguments: c.RedactArguments,
		State:           judge.StateConfig{Command: c.State.Command, Map: c.State.Map, Plugins: ex.States},
	}
}

// Classifier is the classification chain: the explicit globs, the plugins'
// classifiers, the annotations, the name patterns.
func (c Config) Classifier(plugins []classify.Classifier) func(classify.Tool) classify.Result {
	return classify.NewChain(classify.ChainOptions{WriteTools: c.WriteTools, ReadTools: c.ReadTools, Plugins: plugins,
		IdempotentTools: c.IdempotentTools, IgnoreIdempotentHint: c.IgnoreIdempotentHint}).Classify
}

// Transport is the report file's transport object.
func (c Config) Transport() report.Transport {
	t := report.Transport{Agent: "stdio", Upstream: "stdio"}
	if c.HTTP.Listen != "" {
		t.Agent = "http"
	}
	if c.HTTP.UpstreamURL != "" {
		t.Upstream = "http"
	}
	return t
}

// chaos reports whether the session runs in chaos mode.
func (c Config) chaos() bool { return c.Mode == pipeline.ModeChaos }

// TraceSettings are the settings that affect judging, for the trace's
// header: what `agent-harness judge` uses unless told otherwise.
func (c Config) TraceSettings(scenario, mode string, chaos *report.ChaosInfo) trace.Settings {
	plugins := make([]string, 0, len(c.Plugins))
	for _, p := range c.Plugins {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		plugins = append(plugins, p)
	}
	kind := c.Kind
	if kind == "" {
		kind = "proxy"
	}
	return trace.Settings{
		Scenario:             scenario,
		Mode:                 mode,
		Chaos:                chaos,
		Kind:                 kind,
		KeyFields:            c.keyFields().Names(),
		WriteTools:           slices.Clone(c.WriteTools),
		ReadTools:            orEmpty(c.ReadTools),
		IdempotentTools:      orEmpty(c.IdempotentTools),
		IgnoreIdempotentHint: c.IgnoreIdempotentHint,
		RetryAfter:           c.RetryAfter,
		RedactArguments:      c.RedactArguments,
		Plugins:              plugins,
		PluginConfig:         c.PluginConfig,
		StateCommand:         c.State.Command,
		StateMap:             c.State.Map,
	}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return slices.Clone(s)
}

// UsageError is a setting that cannot be used, found before anything
// started: the CLI prints Msg as its one usage line (exit 2).
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

func usagef(format string, args ...any) UsageError {
	return UsageError{Msg: fmt.Sprintf(format, args...)}
}

// ExitError is how a session ended when its exit code is not 0 and its
// line (if any) was already printed: ExitFailure, ExitBrokenPipe, or
// 128+N after signal N (behaviour §13).
type ExitError struct{ Code int }

func (e ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// Exit codes of Run besides 0.
const (
	// ExitFailure: the upstream did not start, the report file failed, the
	// relay failed.
	ExitFailure = 1
	// ExitBrokenPipe: the agent stopped reading (as a shell reports a
	// process killed by SIGPIPE).
	ExitBrokenPipe = 128 + int(syscall.SIGPIPE)
)
