package pipeline

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cuonztech/agent-harness/internal/escape"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/report"
)

// feedbackPrefix starts every line of the program on stderr.
const feedbackPrefix = "[agent-harness] "

// alertSource is a judge that reports violations as they appear
// (*judge.Judge).
type alertSource interface {
	AlertCount() int
	AlertsSince(n int) []judge.Alert
}

// feedback prints what happens while the session runs (behaviour §2.8): one
// line when a fault fires and one per new violation. Lines are formatted
// under the pipeline's state lock, in event order, and written after it is
// released, so a slow stderr never holds up other calls; flushes are
// serialised, so the order survives.
type feedback struct {
	w         io.Writer
	alerts    alertSource // nil: the judge reports no alerts
	httpLayer bool        // Options.FaultLayerHTTP

	// Guarded by Pipeline.mu.
	tools map[int64]string // the tool of each call without answer
	fired map[string]int   // how often each scenario fired
	seen  int              // alerts already queued

	qmu     sync.Mutex
	queue   []string
	pending atomic.Bool // queue is not empty
	wmu     sync.Mutex  // serialises flushes
}

func newFeedback(w io.Writer, j Judge, httpLayer bool) *feedback {
	if w == nil {
		return nil
	}
	f := &feedback{w: w, tools: map[int64]string{}, fired: map[string]int{}, httpLayer: httpLayer}
	f.alerts, _ = j.(alertSource)
	return f
}

// noteLocked looks at an event the judge has just applied: a fired fault
// or a new violation queues a line. The caller holds Pipeline.mu. A call
// costs a map update and an atomic load unless something is printed.
func (f *feedback) noteLocked(ev judge.Event, j Judge) {
	switch ev.Kind {
	case judge.EventCall:
		f.tools[ev.Call] = ev.Tool
	case judge.EventAnswer:
		tool, ok := f.tools[ev.Call]
		delete(f.tools, ev.Call)
		if ok && ev.Scenario != "" {
			f.fired[ev.Scenario]++
			f.push(firedLine(ev, tool, f.fired[ev.Scenario], f.httpLayer))
		}
	case judge.EventEnd:
		clear(f.tools)
	}
	if f.alerts == nil || f.alerts.AlertCount() == f.seen {
		return
	}
	news := f.alerts.AlertsSince(f.seen)
	f.seen += len(news)
	verdict, _ := j.Verdict()
	for _, a := range news {
		f.push(alertLine(a, verdict))
	}
}

func (f *feedback) push(line string) {
	f.qmu.Lock()
	f.queue = append(f.queue, feedbackPrefix+escape.Line(line)+"\n")
	f.pending.Store(true)
	f.qmu.Unlock()
}

// flush writes the queued lines.
func (f *feedback) flush() {
	if !f.pending.Load() {
		return
	}
	f.wmu.Lock()
	defer f.wmu.Unlock()
	f.qmu.Lock()
	lines := f.queue
	f.queue = nil
	f.pending.Store(false)
	f.qmu.Unlock()
	if len(lines) > 0 {
		_, _ = io.WriteString(f.w, strings.Join(lines, ""))
	}
}

// firedLine says which fault fired on which call, whether the upstream
// executed the call, and what the agent was told. n counts the scenario's
// firings so far (F4 marks two writes); httpLayer: faults are delivered as
// HTTP (Options.FaultLayerHTTP).
func firedLine(ev judge.Event, tool string, n int, httpLayer bool) string {
	head := fmt.Sprintf("%s fired on %s (call %d)", ev.Scenario, escape.Name(tool), ev.Call)
	if ev.Scenario == "F4" {
		head = fmt.Sprintf("F4 marked %s (call %d) as write %d of %d", escape.Name(tool), ev.Call, n, fault.F4Writes)
	}
	switch {
	case ev.Outcome == judge.InjectedNotExecuted:
		return head + ": not executed upstream (not forwarded); " + agentTold(ev, httpLayer)
	case ev.Fault != "":
		// Forwarded, executed, and the answer replaced.
		return head + ": executed upstream; " + agentTold(ev, httpLayer)
	}
	// Applied without changing anything (F4, a plugin fault that passes).
	return head + ": passed through unchanged; " + upstreamDid(ev)
}

// agentTold names the injected answer the agent got. At the HTTP layer
// F1's answer is no answer: the connection is dropped (behaviour §8.4).
func agentTold(ev judge.Event, httpLayer bool) string {
	switch ev.Fault {
	case fault.KindTimeout:
		if httpLayer {
			return "the agent's connection was dropped without an answer"
		}
		return "the agent was told it timed out"
	case fault.KindRateLimit:
		return fmt.Sprintf("the agent got HTTP 429 asking to retry after %d s", ev.RetryAfterMs/1000)
	case fault.KindTruncatedJSON:
		return "the agent got a truncated JSON body"
	case fault.KindServerError, fault.KindChaos:
		return "the agent got HTTP 500"
	}
	return "the agent got an injected " + strconv.Quote(ev.Fault) + " answer"
}

// upstreamDid says how the upstream answered a call that was passed
// through; the agent got that answer.
func upstreamDid(ev judge.Event) string {
	switch ev.Outcome {
	case judge.Executed:
		return "executed upstream, and the agent got the upstream's answer"
	case judge.UpstreamRejected:
		return "the upstream answered isError, and the agent got that answer"
	case judge.UpstreamNotExecuted:
		return "not executed upstream (its HTTP status proves the call did not reach a tool), and the agent got an isError result naming the status"
	case judge.Incomplete:
		return "not executed upstream (it asked for input and the agent never sent the follow-up)"
	}
	if ev.Detail != "" {
		return "whether the upstream executed it is unknown (" + ev.Detail + ")"
	}
	return "whether the upstream executed it is unknown"
}

// alertLine is the line of a new violation. It starts with FAIL when the
// run's verdict is FAIL now; with VIOLATION when the run cannot fail yet
// (chaos mode before its first fault: the verdict is NOT_TESTED until a
// fault fired).
func alertLine(a judge.Alert, verdict string) string {
	if a.Type == "DEDUPLICATED_BY_BACKEND" {
		return fmt.Sprintf("BACKEND: %s executed %d times on the wire, once at the backend (%s; DEDUPLICATED_BY_BACKEND): no DUPLICATE_EXECUTION; operation %s",
			escape.Name(a.Tool), a.Executions, a.Note, a.Operation)
	}
	prefix := "VIOLATION: "
	if verdict == report.VerdictFail {
		prefix = "FAIL: "
	}
	var s string
	switch a.Type {
	case "RETRY_AFTER_VIOLATED":
		s = fmt.Sprintf("%s re-sent %d ms after an HTTP 429 that asked to wait %d ms (RETRY_AFTER_VIOLATED)",
			escape.Name(a.Tool), a.WaitedMs, a.RequiredMs)
	default:
		s = fmt.Sprintf("%s executed %d times (%s)", escape.Name(a.Tool), a.Executions, a.Type)
		if a.Note != "" {
			s += " — " + a.Note
		}
	}
	return prefix + s + "; operation " + a.Operation
}

// Summary is the one line printed when the proxy exits (behaviour §2.8):
// verdict, score, the deciding reason, and the report file when there is
// one that was written.
func (p *Pipeline) Summary() string {
	verdict, reason := p.judge.Verdict()
	s := p.judge.Score()
	score := "no score"
	if s.Total != nil {
		score = fmt.Sprintf("score %d/100", *s.Total)
		if s.Capped {
			score += " (capped)"
		}
	}
	line := fmt.Sprintf("Result: %s, %s. %s", verdict, score, reason)
	if p.opts.Report != nil && p.brokenErr() == nil {
		line += " Report: " + p.opts.Report.Path()
	}
	return feedbackPrefix + escape.Line(line)
}
