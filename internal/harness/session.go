package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/cuonztech/agent-harness/internal/escape"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/pipeline"
	"github.com/cuonztech/agent-harness/internal/relay"
	"github.com/cuonztech/agent-harness/internal/report"
	"github.com/cuonztech/agent-harness/internal/reportfile"
	"github.com/cuonztech/agent-harness/internal/trace"
)

// MaxRandomSeed bounds drawn chaos seeds to integers every JSON reader
// holds exactly (2^53).
const MaxRandomSeed = 1 << 53

// Extras are what plugins add to a session's composition.
type Extras struct {
	// Fault is the plugin fault selected by the scenario name; nil =
	// built-in.
	Fault fault.Fault
	// Equivalences and PairCheckers are the plugins' judge hooks,
	// PluginStatus their health (judge.Config.PluginStatus).
	Equivalences []judge.Equivalence
	PairCheckers []judge.PairChecker
	PluginStatus func() []judge.PluginState
	// Plugins returns the plugins' status list for the report file.
	Plugins func() json.RawMessage
}

// Session is a proxy session's fault + judge + report file + audit tools,
// joined in a pipeline for the relay.
type Session struct {
	cfg      Config
	pipeline *pipeline.Pipeline
	trace    *trace.Writer // nil without a trace
	sessions *sessionList
	stop     context.CancelFunc
	fatalMu  sync.Mutex
	fatalErr error
	// halt is closed by fatal: no further message reaches the agent
	// (relay.Options.Halt).
	halt     chan struct{}
	haltOnce sync.Once
}

// NewSession builds the fault (a UsageError for a bad one), the trace (a
// UsageError for a bad target), the judge and the pipeline, prints the
// chaos seed, and writes the startup report (ExitError 1 when it cannot
// be written) — all before the upstream is started. stop cancels the
// relay; it is called when the report file fails during the session.
func NewSession(c Config, report pipeline.ReportWriter, ex Extras, stderr io.Writer, stop context.CancelFunc) (*Session, error) {
	f, name, chaos, err := c.Fault(ex)
	if err != nil {
		return nil, usagef("flag --scenario: %s", err)
	}
	mode := pipeline.ModeDeterministic
	if chaos != nil {
		mode = pipeline.ModeChaos
		fmt.Fprintf(stderr, "[agent-harness] chaos seed: %d\n", chaos.Seed)
	}
	start := time.Now() // attemptLog[].at and the trace's t count from here
	tw, err := OpenTrace(c, c.TraceSettings(name, mode, chaos), start)
	if err != nil {
		return nil, err
	}
	j := judge.New(c.JudgeConfig(name, ex, start))
	s := &Session{cfg: c, stop: stop, trace: tw, sessions: &sessionList{}, halt: make(chan struct{})}
	var tracer pipeline.Tracer // a nil interface without a trace
	if tw != nil {
		tracer = tw
	}
	s.pipeline = pipeline.New(pipeline.Options{
		Trace:          tracer,
		ReportInterval: c.ReportInterval,
		Judge:          j,
		Fault:          f,
		Report:         report,
		Mode:           mode,
		Chaos:          chaos,
		Plugins:        ex.Plugins,
		AuditTools:     c.AuditTools,
		Transport:      c.Transport(),
		FaultLayerHTTP: c.HTTP.FaultLayer == "http",
		Stderr:         stderr,
		Feedback:       feedbackWriter(c, stderr),
		Fatal:          s.fatal,
		Probe:          c.probe(),
	})
	s.sessions.open = s.pipeline.OpenSession
	s.sessions.openOwn = s.pipeline.OpenSessionOwnUpstream
	s.sessions.ownUpstream = c.HTTP.Listen != "" && c.HTTP.UpstreamURL == "" && c.HTTP.UpstreamPerSession
	if err := s.pipeline.Start(); err != nil {
		return nil, ExitError{ExitFailure} // the pipeline printed the line
	}
	if c.AuditTools && (name != "" || chaos != nil) {
		fmt.Fprintln(stderr, "[agent-harness] WARNING: the audit tools are on: the agent can read what really happened "+
			"(e.g. that a timed-out write executed) with cuonztech__get_report and cuonztech__get_score; "+
			"for a real measurement use --audit-tools off")
	}
	return s, nil
}

// feedbackWriter is where the fired and violation lines go: stderr, or
// nowhere when quiet.
func feedbackWriter(c Config, stderr io.Writer) io.Writer {
	if c.Quiet {
		return nil
	}
	return stderr
}

// OpenReport checks the report file target and returns its writer (nil
// without one). A bad target is a UsageError (exit 2); a target that
// cannot be replaced atomically is one WARNING line at the first write.
func OpenReport(c Config, stderr io.Writer) (pipeline.ReportWriter, error) {
	if c.ReportFile == "" {
		return nil, nil
	}
	w, err := reportfile.New(c.ReportFile, reportfile.Options{Warn: func(msg string) {
		fmt.Fprintf(stderr, "[agent-harness] WARNING: %s\n", escape.Line(msg))
	}})
	if err != nil {
		return nil, usagef("flag --report-file: %s", err)
	}
	return w, nil
}

// reportStartupFailed writes the report file of a run that failed before
// its session was built (a plugin did not load): status "failed" with
// startupError, verdict NOT_TESTED. Without a report file it does
// nothing; a write that fails prints its line (the proxy exits 1 either
// way).
func reportStartupFailed(c Config, report pipeline.ReportWriter, cause error, stderr io.Writer) {
	if report == nil {
		return
	}
	name, mode := c.Scenario, pipeline.ModeDeterministic
	if c.chaos() {
		name, mode = "chaos", pipeline.ModeChaos
	}
	if tw, _ := OpenTrace(c, c.TraceSettings(name, mode, nil), time.Now()); tw != nil {
		_ = tw.StartupFailed(time.Now(), cause.Error())
		tw.Close()
	}
	j := judge.New(judge.Config{KeyFields: c.keyFields(), Scenario: name, Kind: "proxy"})
	p := pipeline.New(pipeline.Options{Judge: j, Report: report, Mode: mode, Stderr: stderr,
		Fatal: func(error) {}})
	_ = p.StartupFailed(cause)
}

// Fault returns the configured fault, the judge's scenario name, and the
// chaos report info in chaos mode. A plugin fault of ex replaces the
// built-in one.
func (c Config) Fault(ex Extras) (fault.Fault, string, *report.ChaosInfo, error) {
	if c.chaos() {
		seed := c.Seed
		if !c.SeedSet {
			seed = rand.Int64N(MaxRandomSeed)
		}
		f := fault.NewChaos(uint64(seed), c.ErrorRate)
		return f, "chaos", &report.ChaosInfo{Seed: seed, ErrorRate: c.ErrorRate}, nil
	}
	if ex.Fault != nil {
		return ex.Fault, ex.Fault.Name(), nil, nil
	}
	if c.Scenario == "" {
		return nil, "", nil, nil
	}
	f, err := fault.New(c.Scenario, fault.Options{RetryAfter: time.Duration(c.RetryAfter) * time.Second})
	if err != nil {
		return nil, "", nil, err
	}
	return f, f.Name(), nil, nil
}

// relayOptions fills the relay's hooks for the session.
func (s *Session) relayOptions(ro *relay.Options) {
	ro.Halt = s.halt
	ro.Pipeline = s.pipeline
	if s.cfg.HTTP.Listen == "" {
		ro.Session = s.sessions.add("stdio") // over HTTP, each MCP session gets its own
	}
	ro.Now = s.pipeline.Now
	ro.ExtraTools = s.pipeline.AuditTools()
	if ro.ExtraTools != nil {
		ro.LocalTool = s.pipeline.LocalTool
	}
	ro.OnTools = s.pipeline.OnTools
	ro.OnServed = s.pipeline.Served
	ro.OnSessionEnd = func(context.Context) {
		if err := s.pipeline.OnSessionEnd(); err != nil {
			s.setFatal(err)
		}
	}
}

// fatal is the pipeline's Fatal hook inside a session: it records the
// error, halts every further message to the agent and stops the relay; the
// proxy then exits 1 (end). The call that failed gets no answer
// (relay.ErrWithheld).
func (s *Session) fatal(err error) {
	s.setFatal(err)
	s.haltOnce.Do(func() { close(s.halt) })
	s.stop()
}

func (s *Session) setFatal(err error) {
	s.fatalMu.Lock()
	defer s.fatalMu.Unlock()
	if s.fatalErr == nil {
		s.fatalErr = err
	}
}

// finish records how the relay ended in the report file and reports
// whether the run failed (the proxy exits 1, end): the upstream did not
// start or the report file failed.
func (s *Session) finish(runErr error) (failed bool) {
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

// summary prints the one line at exit (behaviour §2.8): verdict, score,
// the deciding reason and the report file. Not when quiet, and not when
// the run exits 1 (the upstream did not start, the report file failed,
// the relay failed): the error line says what matters then.
func (s *Session) summary(runErr error, stderr io.Writer) {
	s.fatalMu.Lock()
	failed := s.fatalErr != nil
	s.fatalMu.Unlock()
	if s.cfg.Quiet || failed || runErr != nil && !errors.Is(runErr, relay.ErrAgentGone) {
		return
	}
	fmt.Fprintln(stderr, s.pipeline.Summary())
}
