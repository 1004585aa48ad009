package pipeline

import (
	"cmp"
	"encoding/json"
	"slices"
	"sync"

	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/relay"
	"github.com/cuonztech/agent-harness/internal/wire"
)

// Tasks (behaviour §4.13): a tools/call answered with a task handle — MCP
// 2025-11-25's CreateTaskResult {"task": {"taskId": …}} to a call whose
// params carry "task", or the 2026-07-28 extension's result with
// resultType "task" and a top-level taskId — has not finished: the
// attempt stays open, mapped to its task, until the agent's polls
// (tasks/get, tasks/result, tasks/cancel) or the upstream's status
// notifications tell its final status; the relay reports them
// (relay.TaskObserver). At the session end the relay polls the tasks still
// open (relay.TaskPoller); a task whose final status is unknown then is an
// unknown outcome.

// openTask is a task whose creating call's attempt is open.
type openTask struct {
	call   int64  // the judge's call number of the creating tools/call
	status string // the last status seen ("working" at creation)
	// scenario is the scenario applied to the creating call (F4 passes a
	// write with one): the judge hears of it with the final status.
	scenario string
	// faulted: a fault (F1) replaced the handle the agent would have got;
	// act and fc settle it with the final status.
	faulted bool
	act     fault.Action
	fc      fault.Call
}

// taskKey names a task: the session's name and the upstream's task id.
type taskKey struct{ session, id string }

// tasks holds the open tasks of a pipeline.
type tasks struct {
	mu   sync.Mutex
	open map[taskKey]*openTask
}

// taskHandle reports the task id of a result that is a task handle for
// call, "" when it is none.
func taskHandle(call *relay.ToolCall, result []byte) string {
	if len(result) == 0 || result[0] != '{' {
		return ""
	}
	if rt, _, ok := wire.Lookup(result, "resultType"); ok {
		if string(rt) != `"task"` {
			return ""
		}
		id, _ := wire.Unquote(lookup(result, "taskId"))
		return id
	}
	// 2025-11-25: only a call that asked for a task gets one.
	if t, _, ok := wire.Lookup(call.Params, "task"); !ok || len(t) == 0 || t[0] != '{' {
		return ""
	}
	t, _, ok := wire.Lookup(result, "task")
	if !ok || len(t) == 0 || t[0] != '{' {
		return ""
	}
	id, _ := wire.Unquote(lookup(t, "taskId"))
	return id
}

// lookup is obj's member name, nil when absent or obj is not an object.
func lookup(obj []byte, name string) []byte {
	if len(obj) == 0 || obj[0] != '{' {
		return nil
	}
	v, _, _ := wire.Lookup(obj, name)
	return v
}

func (t *tasks) add(session, id string, ot *openTask) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.open == nil {
		t.open = map[taskKey]*openTask{}
	}
	t.open[taskKey{session, id}] = ot
}

// ids lists the ids of session's open tasks, in call order.
func (t *tasks) ids(session string) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var keys []taskKey
	for k := range t.open {
		if k.session == session {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b taskKey) int { return cmp.Compare(t.open[a].call, t.open[b].call) })
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.id
	}
	return out
}

// settle applies what m says of an open task: the outcome of its call when
// m tells a final status (ok), after which the task is no longer open.
func (t *tasks) settle(m relay.TaskMessage) (ot *openTask, outcome judge.Outcome, detail string, result json.RawMessage, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := taskKey{m.Session, m.TaskID}
	ot = t.open[k]
	if ot == nil || m.Body == nil {
		return nil, "", "", nil, false
	}
	status, _ := wire.Unquote(lookup(m.Body, "status"))
	if status != "" {
		ot.status = status
	}
	switch {
	case m.Method == "tasks/result" && status == "":
		// 2025-11-25: the CallToolResult the task produced (tasks/result
		// answers once the task is final).
		outcome, detail, result = resultOutcome(m.Body), "the task's result (tasks/result)", m.Body
	case status == "completed":
		// 2026: the result is inlined; 2025: a completed tool task is not
		// an isError one (that one is "failed").
		outcome, detail = judge.Executed, "the task completed"
		if r := lookup(m.Body, "result"); len(r) > 0 && r[0] == '{' {
			outcome, result = resultOutcome(r), r
		}
	case status == "failed":
		outcome, detail = judge.UpstreamRejected, "the task failed"
	case status == "cancelled":
		outcome, detail = judge.Unknown, "the task was cancelled: whether it wrote anything is unknown"
	default:
		return nil, "", "", nil, false
	}
	delete(t.open, k)
	return ot, outcome, detail, result, true
}

// resultOutcome is a final CallToolResult's outcome: upstream-rejected
// with isError, else executed.
func resultOutcome(r []byte) judge.Outcome {
	if s, ok := scanResult(r); ok && s.isError {
		return judge.UpstreamRejected
	}
	return judge.Executed
}

// drain removes and returns every open task.
func (t *tasks) drain() map[taskKey]*openTask {
	t.mu.Lock()
	defer t.mu.Unlock()
	o := t.open
	t.open = nil
	return o
}

// sortedTasks lists open tasks by their call number (the judge's events
// in a fixed order, so a re-judged trace is the same).
func sortedTasks(m map[taskKey]*openTask) []*openTask {
	out := make([]*openTask, 0, len(m))
	for _, t := range m {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b *openTask) int { return cmp.Compare(a.call, b.call) })
	return out
}

// TaskMessage settles the attempt of a task whose final status the agent's
// poll, the proxy's own or the upstream's notification tells
// (relay.TaskObserver).
func (p *Pipeline) TaskMessage(m relay.TaskMessage) {
	ot, outcome, detail, result, ok := p.tasks.settle(m)
	if !ok {
		return
	}
	ev := judge.Event{Kind: judge.EventAnswer, Time: p.clock.Now(), Call: ot.call, Outcome: outcome, Detail: detail, Result: result}
	if outcome == judge.Executed && result != nil {
		ev.ResponseDigest = digest(result)
	}
	executed := outcome == judge.Executed
	if !ot.faulted {
		ev.Scenario = ot.scenario
	}
	if ot.faulted {
		if s, ok := p.opts.Fault.(fault.Settler); ok {
			s.Settle(ot.fc, ot.act, executed)
		}
		if executed {
			// A ghost write: the task ran, the agent saw the fault.
			ev.Scenario, ev.Fault, ev.RetryAfterMs = ot.act.Scenario, ot.act.Fault, ot.act.RetryAfter.Milliseconds()
		}
		// Otherwise the task did not complete: the agent's fault hid no
		// execution, and the judge hears of no fault (as for F1 on an
		// isError answer, which is not applied).
	}
	// The fault was delivered when the agent got it (handedOff), not now.
	if err := p.persist(p.apply(ev)); err != nil {
		p.opts.Fatal(err)
	}
}

// OpenTasks lists session's tasks whose final status is not known: the
// relay polls them at the session end (relay.TaskPoller).
func (p *Pipeline) OpenTasks(session string) []string { return p.tasks.ids(session) }
