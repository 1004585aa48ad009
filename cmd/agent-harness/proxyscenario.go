package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/pipeline"
	"github.com/cuonztech/agent-harness/internal/relay"
	"github.com/cuonztech/agent-harness/internal/report"
	"github.com/cuonztech/agent-harness/internal/reportfile"
	"github.com/cuonztech/agent-harness/internal/trace"
)

// maxRandomSeed bounds drawn chaos seeds to integers every JSON reader
// holds exactly (2^53).
const maxRandomSeed = 1 << 53

// scenarioExtras are what plugins add to the scenario wiring.
type scenarioExtras struct {
	// Fault is the plugin fault selected by --scenario NAME; nil = built-in.
	Fault fault.Fault
	// Equivalences and PairCheckers are the plugins' judge hooks,
	// PluginStatus their health (judge.Config.PluginStatus).
	Equivalences []judge.Equivalence
	PairCheckers []judge.PairChecker
	PluginStatus func() []judge.PluginState
	// Plugins returns the plugins' status list for the report file.
	Plugins func() json.RawMessage
}

// scenario is the proxy's fault + judge + report file + audit tools,
// joined in a pipeline for the relay.
type scenario struct {
	pipeline *pipeline.Pipeline
	trace    *trace.Writer // nil without --trace
	sessions *sessionList
	// httpAgent: the agent side is Streamable HTTP (--listen).
	httpAgent bool
	stop      context.CancelFunc
	fatalMu   sync.Mutex
	fatalErr  error
	// halt is closed by fatal: no further message reaches the agent
	// (relay.Options.Halt).
	halt     chan struct{}
	haltOnce sync.Once
}

// newScenario builds the fault (a usageError for a bad one), the trace
// (a usageError for a bad target), the judge and the pipeline, prints the
// chaos seed, and writes the startup report (exit 1 when it cannot be
// written) — all before the upstream is started. stop cancels the relay; it
// is called when the report file fails during the session.
func newScenario(o proxyOptions, report pipeline.ReportWriter, ex scenarioExtras, stderr io.Writer, stop context.CancelFunc) (*scenario, error) {
	f, name, chaos, err := buildFault(o, ex)
	if err != nil {
		return nil, usagef("%s", err)
	}
	mode := pipeline.ModeDeterministic
	if chaos != nil {
		mode = pipeline.ModeChaos
		fmt.Fprintf(stderr, "[agent-harness] chaos seed: %d\n", chaos.Seed)
	}
	start := time.Now() // attemptLog[].at and the trace's t count from here
	tw, err := openTrace(o, traceSettings(o, name, mode, chaos), start)
	if err != nil {
		return nil, err
	}
	j := judge.New(judge.Config{
		KeyFields:    canon.ParseKeyFields(o.KeyFields),
		Scenario:     name,
		Kind:         "proxy",
		Equivalences: ex.Equivalences,
		PairCheckers: ex.PairCheckers,
		PluginStatus: ex.PluginStatus,

		Start:           start,
		RedactArguments: o.RedactArguments,
	})
	s := &scenario{stop: stop, trace: tw, sessions: &sessionList{}, httpAgent: o.HTTP.Listen != "", halt: make(chan struct{})}
	var tracer pipeline.Tracer // a nil interface without --trace
	if tw != nil {
		tracer = tw
	}
	s.pipeline = pipeline.New(pipeline.Options{
		Trace:          tracer,
		ReportInterval: o.ReportInterval,
		Judge:          j,
		Fault:          f,
		Report:         report,
		Mode:           mode,
		Chaos:          chaos,
		Plugins:        ex.Plugins,
		AuditTools:     o.AuditTools,
		Transport:      reportTransport(o),
		FaultLayerHTTP: o.HTTP.FaultLayer == "http",
		Stderr:         stderr,
		Feedback:       feedbackWriter(o, stderr),
		Fatal:          s.fatal,
	})
	s.sessions.open = s.pipeline.OpenSession
	s.sessions.openOwn = s.pipeline.OpenSessionOwnUpstream
	s.sessions.ownUpstream = o.HTTP.Listen != "" && o.HTTP.UpstreamURL == "" && o.HTTP.UpstreamPerSession
	if err := s.pipeline.Start(); err != nil {
		return nil, exitCode(exitFailure) // the pipeline printed the line
	}
	if o.AuditTools && (name != "" || chaos != nil) {
		fmt.Fprintln(stderr, "[agent-harness] WARNING: the audit tools are on: the agent can read what really happened "+
			"(e.g. that a timed-out write executed) with cuonztech__get_report and cuonztech__get_score; "+
			"for a real measurement use --audit-tools off")
	}
	return s, nil
}

// feedbackWriter is where the fired and violation lines go: stderr, or
// nowhere with --quiet.
func feedbackWriter(o proxyOptions, stderr io.Writer) io.Writer {
	if o.Quiet {
		return nil
	}
	return stderr
}

// openReport checks the --report-file target and returns its writer (nil
// without --report-file). A bad target is a usageError (exit 2); a target
// that cannot be replaced atomically is one WARNING line at the first
// write.
func openReport(o proxyOptions, stderr io.Writer) (pipeline.ReportWriter, error) {
	if o.ReportFile == "" {
		return nil, nil
	}
	w, err := reportfile.New(o.ReportFile, reportfile.Options{Warn: func(msg string) {
		fmt.Fprintf(stderr, "[agent-harness] WARNING: %s\n", oneLine(msg))
	}})
	if err != nil {
		return nil, usagef("flag --report-file: %s", err)
	}
	return w, nil
}

// reportStartupFailed writes the report file of a run that failed before
// its scenario was built (a --plugin did not load): status "failed" with
// startupError, verdict NOT_TESTED. Without --report-file it does nothing;
// a write that fails prints its line (the proxy exits 1 either way).
func reportStartupFailed(o proxyOptions, report pipeline.ReportWriter, cause error, stderr io.Writer) {
	if report == nil {
		return
	}
	name, mode := o.Scenario, pipeline.ModeDeterministic
	if o.Mode == pipeline.ModeChaos {
		name, mode = "chaos", pipeline.ModeChaos
	}
	if tw, _ := openTrace(o, traceSettings(o, name, mode, nil), time.Now()); tw != nil {
		_ = tw.StartupFailed(time.Now(), cause.Error())
		tw.Close()
	}
	j := judge.New(judge.Config{KeyFields: canon.ParseKeyFields(o.KeyFields), Scenario: name, Kind: "proxy"})
	p := pipeline.New(pipeline.Options{Judge: j, Report: report, Mode: mode, Stderr: stderr,
		Fatal: func(error) {}})
	_ = p.StartupFailed(cause)
}

// buildFault returns the configured fault, the judge's scenario name, and
// the chaos report info in chaos mode.
func buildFault(o proxyOptions, ex scenarioExtras) (fault.Fault, string, *report.ChaosInfo, error) {
	if o.Mode == pipeline.ModeChaos {
		seed := o.Seed
		if !o.SeedSet {
			seed = rand.Int64N(maxRandomSeed)
		}
		f := fault.NewChaos(uint64(seed), o.ErrorRate)
		return f, "chaos", &report.ChaosInfo{Seed: seed, ErrorRate: o.ErrorRate}, nil
	}
	if ex.Fault != nil {
		return ex.Fault, ex.Fault.Name(), nil, nil
	}
	if o.Scenario == "" {
		return nil, "", nil, nil
	}
	f, err := fault.New(o.Scenario, fault.Options{RetryAfter: time.Duration(o.RetryAfter) * time.Second})
	if err != nil {
		return nil, "", nil, fmt.Errorf("flag --scenario: %w", err)
	}
	return f, f.Name(), nil, nil
}

// relayOptions fills the relay's hooks for the scenario.
func (s *scenario) relayOptions(ro *relay.Options) {
	ro.Halt = s.halt
	ro.Pipeline = s.pipeline
	if !s.httpAgent {
		ro.Session = s.sessions.add("stdio") // with --listen, each MCP session gets its own
	}
	ro.Now = s.pipeline.Now
	ro.ExtraTools = s.pipeline.AuditTools()
	if ro.ExtraTools != nil {
		ro.LocalTool = s.pipeline.LocalTool
	}
	ro.OnTools = s.pipeline.OnTools
	ro.OnSessionEnd = func(context.Context) {
		if err := s.pipeline.OnSessionEnd(); err != nil {
			s.setFatal(err)
		}
	}
}

// fatal is the pipeline's Fatal hook inside a session: it records the
// error, halts every further message to the agent and stops the relay; the
// proxy then exits 1 (proxyEnd). The call that failed gets no answer
// (relay.ErrWithheld).
func (s *scenario) fatal(err error) {
	s.setFatal(err)
	s.haltOnce.Do(func() { close(s.halt) })
	s.stop()
}

func (s *scenario) setFatal(err error) {
	s.fatalMu.Lock()
	defer s.fatalMu.Unlock()
	if s.fatalErr == nil {
		s.fatalErr = err
	}
}

// finish records how the relay ended in the report file and reports
// whether the run failed (the proxy exits 1, proxyEnd): the upstream did
// not start or the report file failed.
func (s *scenario) finish(runErr error) (failed bool) {
	if errors.Is(runErr, relay.ErrStartFailed) {
		if s.trace != nil {
			_ = s.trace.StartupFailed(time.Now(), runErr.Error())
		}
		_ = s.pipeline.StartupFailed(runErr) // a failed write printed its line; exit 1 either way
		return true
	}
	s.fatalMu.Lock()
	defer s.fatalMu.Unlock()
	return s.fatalErr != nil
}

// summary prints the one line at exit (behaviour §2.8): verdict, score, the
// deciding reason and the report file. Not with --quiet, and not when the
// run exits 1 (the upstream did not start, the report file failed, the
// relay failed): the error line says what matters then.
func (s *scenario) summary(o proxyOptions, runErr error, stderr io.Writer) {
	s.fatalMu.Lock()
	failed := s.fatalErr != nil
	s.fatalMu.Unlock()
	if o.Quiet || failed || runErr != nil && !errors.Is(runErr, relay.ErrAgentGone) {
		return
	}
	fmt.Fprintln(stderr, s.pipeline.Summary())
}
