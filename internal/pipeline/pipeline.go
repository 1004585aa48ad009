package pipeline

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/relay"
	"github.com/cuonztech/agent-harness/internal/report"
	"github.com/cuonztech/agent-harness/internal/state"
)

// DefaultGrace is how long the session end waits for calls in flight.
const DefaultGrace = 2 * time.Second

// Modes of the report file.
const (
	ModeDeterministic = "deterministic"
	ModeChaos         = "chaos"
)

// Judge is what the pipeline needs of the judge (*judge.Judge).
type Judge interface {
	Apply(ev judge.Event)
	AppendFile(dst []byte, meta report.FileMeta) []byte
	Markdown() string
	ScoreText() string
	Score() report.Score
	Patches() []report.Patch
	Verdict() (verdict, reason string)
}

// ReportWriter replaces the report file's contents (*reportfile.Writer).
type ReportWriter interface {
	Write(data []byte) error
	Path() string
}

// Options configures a Pipeline. Only Judge is required.
type Options struct {
	// Judge receives every event; required.
	Judge Judge
	// Fault decides per call; nil relays every call unchanged (no scenario).
	Fault fault.Fault
	// Report is the --report-file writer; nil writes no file.
	Report ReportWriter
	// Mode is ModeDeterministic (when empty) or ModeChaos.
	Mode string
	// Chaos is the seed and error rate shown in the report in chaos mode.
	Chaos *report.ChaosInfo
	// Plugins returns the plugins' status list for the report file; nil
	// when no plugin is loaded.
	Plugins func() json.RawMessage
	// AuditTools enables cuonztech__get_report and cuonztech__get_score.
	AuditTools bool
	// Transport is the report file's transport object; empty fields are
	// "stdio".
	Transport report.Transport
	// FaultLayerHTTP: the agent side delivers faults as HTTP (--fault-layer
	// http), so the fired line of F1 says the connection was dropped, not
	// that the agent was told of a timeout.
	FaultLayerHTTP bool
	// Clock is the time source; nil is the system clock.
	Clock Clock
	// Grace is how long the session end waits for calls in flight; zero is
	// DefaultGrace.
	Grace time.Duration
	// Stderr receives the one line printed when the report file cannot be
	// written; nil is os.Stderr.
	Stderr io.Writer
	// Feedback receives a line when a fault fires and one per new
	// violation, while the session runs (behaviour §2.8; feedback.go); nil
	// prints none (--quiet, the benchmark).
	Feedback io.Writer
	// Trace records every event before the judge applies it (--trace,
	// behaviour §7); nil records none. A failed record is handled as a report
	// file that cannot be written: one line on stderr, then Fatal.
	Trace Tracer
	// ReportInterval, when positive, writes the report file at most once
	// per interval (and at start, on a failed start and at the session
	// end) instead of at every event (--report-interval, behaviour §7); the
	// trace then carries the per-event durability.
	ReportInterval time.Duration
	// Fatal is called, after that line, from the call that could not
	// write (before its answer reaches the agent) and from every later
	// call and tool listing; it should end the process with exit code 1
	// and make sure no further message reaches the agent (relay.Options.Halt),
	// then return. nil calls os.Exit(1). The call then fails with
	// relay.ErrWithheld: the relay sends no answer for it. Start,
	// StartupFailed, SetToolClassification and OnSessionEnd return the
	// error instead.
	Fatal func(err error)

	// Probe is the state probe (state.go); nil takes no snapshots.
	Probe *Probe
}

// Pipeline implements relay.Pipeline. It is safe for concurrent calls.
type Pipeline struct {
	opts  Options
	judge Judge
	clock Clock

	mu       sync.Mutex // guards the fields below and orders judge events
	gen      uint64     // number of state changes (events, status) so far
	status   string
	startErr string
	tools    json.RawMessage
	inflight int
	idle     chan struct{} // closed when inflight drops to 0
	ending   bool          // OnSessionEnd was called
	ended    bool          // EventEnd applied: later events are dropped

	reportWrites // the report file's writes, under their own mutex

	rewriting atomic.Bool // a report rewrite for a plugin failure is pending (PluginFailed)
	over      atomic.Bool // the final report file was written: PluginFailed records nothing
	served    atomic.Bool // the agent sent more than a version probe (Served)

	traceBad atomic.Pointer[error] // set once the trace could not be written

	fb *feedback // nil without Options.Feedback

	snapshots []state.Snapshot // the state probe's, in order (under mu)
	rounds    rounds           // multi-round-trip calls waiting for their follow-up (rounds.go)
	tasks     tasks            // task-creating calls waiting for their task's final status (tasks.go)
}

// reportWrites is the state of the report file's writes: wmu guards it
// (broken is also readable without wmu).
type reportWrites struct {
	wmu     sync.Mutex            // serialises report file writes
	written uint64                // gen covered by the last successful write
	buf     []byte                // reused encoding buffer
	failed  error                 // set once the report file could not be written
	broken  atomic.Pointer[error] // failed, readable without wmu

	probeLeft bool      // a probe's write was left out (under wmu): said once on stderr
	wroteAt   time.Time // when the report file was last written (under wmu)
	due       bool      // a deferred report write is scheduled (under wmu)
}

// New returns a pipeline. It panics when opts.Judge is nil.
func New(opts Options) *Pipeline {
	if opts.Judge == nil {
		panic("pipeline: Options.Judge is nil")
	}
	if opts.Mode == "" {
		opts.Mode = ModeDeterministic
	}
	if opts.Clock == nil {
		opts.Clock = realClock{}
	}
	if opts.Grace == 0 {
		opts.Grace = DefaultGrace
	}
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	if opts.Fatal == nil {
		opts.Fatal = func(error) { os.Exit(1) }
	}
	return &Pipeline{opts: opts, judge: opts.Judge, clock: opts.Clock, status: report.StatusStarting,
		fb: newFeedback(opts.Feedback, opts.Judge, opts.FaultLayerHTTP)}
}

// Now returns the pipeline clock's time: the relay stamps calls with it
// (relay.Options.Now).
func (p *Pipeline) Now() time.Time { return p.clock.Now() }

// OpenSession records that an agent session opened (id "s1", "s2", …;
// transport "stdio" or "http"): the report file's sessions list, also in
// the trace, so a re-judged trace lists the same sessions.
func (p *Pipeline) OpenSession(id, transport string) {
	p.apply(judge.Event{Kind: judge.EventSession, Time: p.clock.Now(), Session: id, Transport: transport})
}

// OpenSessionOwnUpstream is OpenSession for a session with an upstream
// process of its own (--upstream-per-session): the judge does not take a
// repeat in another session's process for a proven duplicate.
func (p *Pipeline) OpenSessionOwnUpstream(id, transport string) {
	p.apply(judge.Event{Kind: judge.EventSession, Time: p.clock.Now(), Session: id, Transport: transport, OwnUpstream: true})
}

// HandleCall records the call, applies the fault's decision and returns
// the answer for the agent (relay.Pipeline).
func (p *Pipeline) HandleCall(ctx context.Context, call *relay.ToolCall, forward relay.Forward) (relay.Response, error) {
	if err := p.brokenErr(); err != nil {
		return p.fatal(err) // the process must end before any further answer
	}
	if !p.enter() {
		// The session is ending: a call forwarded now could execute after
		// the final report, unjudged. It is answered with an error instead.
		return relay.Response{}, relay.ErrSessionEnded
	}
	defer p.leave()

	// A call is timed when the relay read it (ReadAt), so no wait in between
	// (a re-listing, the report file's lock) makes a re-send look later.
	at := call.ReadAt
	if at.IsZero() {
		at = p.clock.Now()
	}
	fc := fault.Call{ID: call.ID, Tool: call.Tool, Class: call.Class, Idempotent: call.Idempotent,
		Arguments: call.Arguments, Time: at, OutputSchema: call.OutputSchema, ProtocolVersion: call.ProtocolVersion}
	// A follow-up of an input_required answer continues the first leg's
	// attempt (behaviour §4.12): the judge hears of it under that call's
	// number, and of no second call.
	leg, cont := p.rounds.take(call)
	a := attemptOf{id: call.ID}
	if cont {
		a = attemptOf{id: leg.call, leg: &leg}
	} else {
		p.apply(p.callEvent(call, fc.Time))
	}
	act := p.decide(fc)
	if err := sleep(ctx, p.clock, act.Delay); err != nil {
		ev := judge.Event{Kind: judge.EventAnswer, Time: p.clock.Now(), Call: a.id,
			Outcome: judge.Unknown, Detail: "the agent cancelled the call before it was carried out"}
		if cont {
			ev.Outcome, ev.Detail, ev.Result = judge.Incomplete, incompleteNotFollowed, leg.result
		}
		if perr := p.persist(p.apply(ev)); perr != nil {
			return p.fatal(perr)
		}
		return relay.Response{}, err
	}
	if act.Kind == fault.Inject {
		if cont {
			// The fault answers the follow-up without forwarding it: the
			// first leg never completed, and the follow-up is an attempt of
			// its own that did not execute.
			p.apply(judge.Event{Kind: judge.EventAnswer, Time: p.clock.Now(), Call: leg.call,
				Outcome: judge.Incomplete, Detail: incompleteNotFollowed, Result: leg.result})
			p.apply(p.callEvent(call, fc.Time))
		}
		return p.inject(call, act)
	}
	return p.forward(ctx, call, a, fc, act, forward)
}

// attemptOf is the judge's attempt a call belongs to: its own (id is the
// call's) or, for a follow-up, the first leg's (leg).
type attemptOf struct {
	id  int64
	leg *openLeg
}

// callEvent is the judge's record of call, sent at t.
func (p *Pipeline) callEvent(call *relay.ToolCall, t time.Time) judge.Event {
	return judge.Event{
		Kind: judge.EventCall, Time: t, Call: call.ID,
		Tool: call.Tool, Class: call.Class, Arguments: call.Arguments, AcceptsKey: call.AcceptsKey,
		Idempotent: call.Idempotent, Params: call.Params, Session: call.Session,
		RequestSeq: call.RequestSeq,
	}
}

// decide asks the fault about calls of read and write tools; calls of
// unclassified and unlisted tools are never faulted (behaviour §2.2). The
// result of an Inject or ForwardReplace is what fault.Deliver makes of it
// for this call's client (behaviour §3.3); an action that would answer without
// a result the client accepts is treated as a pass (the built-in faults
// and the plugin host never return one).
func (p *Pipeline) decide(c fault.Call) fault.Action {
	if p.opts.Fault == nil || (c.Class != classify.Read && c.Class != classify.Write) {
		return fault.Action{}
	}
	a := p.opts.Fault.Decide(c)
	if a.Kind != fault.Pass {
		r, err := fault.Deliver(a.Result, c)
		if err != nil {
			return fault.Action{}
		}
		a.Result = r
	}
	return a
}

// inject answers with the fault's result; nothing reaches the upstream.
func (p *Pipeline) inject(call *relay.ToolCall, act fault.Action) (relay.Response, error) {
	gen := p.apply(judge.Event{
		Kind: judge.EventAnswer, Time: p.clock.Now(), Call: call.ID,
		Outcome: judge.InjectedNotExecuted, Scenario: act.Scenario, Fault: act.Fault,
		RetryAfterMs: act.RetryAfter.Milliseconds(), Result: act.Result,
	})
	if err := p.persist(gen); err != nil {
		return p.fatal(err)
	}
	p.delivered(call.ID, act.Fault)
	return relay.Response{Result: act.Result, Fault: act.Fault, RetryAfter: act.RetryAfter}, nil
}

// delivered tells the judge that an injected answer of fault kind kind is
// being handed to the agent now, after the report file showed it: waits
// the fault starts (a 429's retry_after) are measured from here, and a
// re-send soon after a transport-level fault may be the client library's
// (duplicate.resentBy).
func (p *Pipeline) delivered(id int64, kind string) {
	p.apply(judge.Event{Kind: judge.EventDelivered, Time: p.clock.Now(), Call: id,
		TransportFault: p.opts.FaultLayerHTTP && transportKind(kind)})
}

// handedOff tells the judge that an injected answer of fault kind kind is
// handed to the agent now for a call whose own outcome comes later (F1 on
// a task-creating write): the delivered event carries the kind, ahead of
// the call's answer, and is its only one.
func (p *Pipeline) handedOff(id int64, kind string) {
	p.apply(judge.Event{Kind: judge.EventDelivered, Time: p.clock.Now(), Call: id, Fault: kind,
		TransportFault: p.opts.FaultLayerHTTP && transportKind(kind)})
}

// transportKind reports whether --fault-layer http delivers fault kind
// kind at the transport level (httpagent's deliverFault): F1's dropped
// connection, F3's cut body, a 429 or a 500. A plugin's kind has no HTTP
// form and reaches the agent as a tool result.
func transportKind(kind string) bool {
	switch kind {
	case fault.KindTimeout, fault.KindTruncatedJSON, fault.KindRateLimit, fault.KindServerError, fault.KindChaos:
		return true
	}
	return false
}

// forward sends the call to the upstream, after the report file shows it
// in flight, and passes or replaces the answer.
func (p *Pipeline) forward(ctx context.Context, call *relay.ToolCall, att attemptOf, fc fault.Call, act fault.Action, forward relay.Forward) (relay.Response, error) {
	if att.leg == nil {
		// A follow-up's attempt was forwarded with its first leg.
		gen := p.apply(judge.Event{Kind: judge.EventForwarded, Time: p.clock.Now(), Call: att.id})
		if err := p.persist(gen); err != nil {
			return p.fatal(err)
		}
	}
	resp, ferr := forward(ctx)
	outcome, detail := outcomeOf(call.Class, resp, ferr)
	// The not-executed mark's secret reaches no agent, trace or report,
	// whatever the call's class (an unlisted tool's too).
	resp.Result, _ = notExecutedProof(resp.Result)
	task := ""
	if ferr == nil && resp.Error == nil && call.Class != classify.Unknown {
		task = taskHandle(call, resp.Result)
	}
	executed := outcome == judge.Executed && task == ""
	// A fault replacing a task handle is settled with the task's final
	// status (tasks.go).
	taskFault := task != "" && act.Kind == fault.ForwardReplace
	if s, ok := p.opts.Fault.(fault.Settler); ok && act.Scenario != "" && !taskFault {
		s.Settle(fc, act, executed)
	}

	if task != "" {
		// A task handle (tasks.go): the attempt's outcome is the task's
		// final status. F1 on a task-creating write: the task runs, the
		// agent gets the fault instead of the handle, and the proxy learns
		// the status by polling at the session end.
		ot := &openTask{call: att.id, status: "working", scenario: act.Scenario}
		if taskFault {
			ot.faulted, ot.act, ot.fc = true, act, fc
			resp = relay.Response{Result: act.Result, Fault: act.Fault, RetryAfter: act.RetryAfter}
			// The agent has the fault from now on, its outcome is the
			// task's: the judge counts the failure it saw from here
			// (behaviour §4.13), before the task can settle.
			p.handedOff(att.id, act.Fault)
		}
		p.tasks.add(call.Session, task, ot) // complete: a poll may settle it at once
		return resp, nil
	}
	if outcome == judge.Incomplete {
		// The upstream asks for input: the attempt goes on with the
		// agent's follow-up (or ends incomplete at the session end). The
		// agent gets the upstream's answer, a fault that would replace it
		// was not applied (Settle re-armed it).
		p.rounds.add(att.id, call, resp.Result)
		return resp, nil
	}
	ev := judge.Event{Kind: judge.EventAnswer, Call: att.id, Outcome: outcome, Detail: detail, Scenario: act.Scenario,
		Result: resp.Result}
	if executed {
		ev.ResponseDigest = digest(resp.Result)
	}
	answer := resp
	if act.Kind == fault.ForwardReplace {
		if executed {
			answer = relay.Response{Result: act.Result, Fault: act.Fault, RetryAfter: act.RetryAfter}
			ev.Fault, ev.RetryAfterMs = act.Fault, act.RetryAfter.Milliseconds()
		} else {
			// Not applied: the agent gets the real answer and the fault
			// re-armed through Settle.
			ev.Scenario = ""
		}
	}
	_ = sleep(ctx, p.clock, act.DelayAfter) // a cancelled agent just gets it sooner
	if p.opts.Probe != nil && p.opts.Probe.EveryWrite && call.Class == classify.Write && !p.isEnding() {
		p.probe("write") // not once the session end began: the after snapshot is the last
	}
	ev.Time = p.clock.Now()
	if err := p.persist(p.apply(ev)); err != nil {
		return p.fatal(err)
	}
	if ev.Fault != "" {
		p.delivered(att.id, ev.Fault)
	}
	if ferr != nil && answer.Result == nil {
		return relay.Response{}, ferr
	}
	return answer, nil
}

// fatal hands a report-file failure to Options.Fatal; the call fails
// without an answer if Fatal returns.
func (p *Pipeline) fatal(err error) (relay.Response, error) {
	p.opts.Fatal(err)
	return relay.Response{}, relay.ErrWithheld
}

// apply hands ev to the judge and returns the state generation that
// includes it. Events after the session end are dropped.
func (p *Pipeline) apply(ev judge.Event) uint64 {
	if p.fb != nil {
		defer p.fb.flush() // runs after the unlock below
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return p.gen
	}
	p.judgeLocked(ev)
	if p.fb != nil {
		p.fb.noteLocked(ev, p.judge)
	}
	p.gen++
	return p.gen
}

// enter counts a call in flight; false once the session end has begun.
func (p *Pipeline) enter() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ending || p.ended {
		return false
	}
	if p.status == report.StatusStarting {
		p.status = report.StatusRunning
		p.gen++
	}
	p.inflight++
	if p.inflight == 1 {
		p.idle = make(chan struct{})
	}
	return true
}

// leave ends a call counted by enter.
func (p *Pipeline) leave() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inflight--
	if p.inflight == 0 {
		close(p.idle)
		p.idle = nil
	}
}
