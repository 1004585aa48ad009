package relay

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/cuonztech/agent-harness/internal/wire"
)

// Tasks (MCP 2025-11-25 experimental, the 2026-07-28 tasks extension): a
// tools/call may be answered with a task handle, and the call's outcome is
// the task's final status, which the agent learns by polling. The relay
// forwards the agent's task requests and the upstream's task notifications
// unchanged; a Pipeline that implements TaskObserver is told what they say.

// Task methods and notifications the relay reports.
const (
	methodTasksGet          = "tasks/get"
	methodTasksResult       = "tasks/result"
	methodTasksCancel       = "tasks/cancel"
	methodTaskStatus2025    = "notifications/tasks/status"
	methodTaskStatusNotices = "notifications/tasks"
)

// TaskMessage is what the upstream said of a task.
type TaskMessage struct {
	// Session is the agent session (Options.Session).
	Session string
	// Method is the agent's request it answers ("tasks/get",
	// "tasks/result", "tasks/cancel") or the upstream's notification
	// ("notifications/tasks/status", "notifications/tasks").
	Method string
	// TaskID is the task's id: the request's params.taskId, or the
	// notification's.
	TaskID string
	// Body is the result of the request (nil when it was a JSON-RPC error)
	// or the notification's params.
	Body json.RawMessage
}

// TaskObserver is a Pipeline that follows tasks.
type TaskObserver interface {
	TaskMessage(m TaskMessage)
}

// TaskPoller is a TaskObserver that names the tasks of a session whose
// final status it does not know: at the session end, before
// Options.OnSessionEnd, the relay asks the upstream for them with tasks/get
// (with the agent's SEP-2575 _meta), again at the task's pollInterval until
// the status is final, for at most Options.CallTimeout (behaviour §4.13).
type TaskPoller interface {
	TaskObserver
	OpenTasks(session string) []string
}

// Bounds of the wait between two of the proxy's own polls of a task.
const (
	minTaskPoll = 10 * time.Millisecond
	maxTaskPoll = time.Second
)

// pollOpenTasks polls the pipeline's open tasks of this session, all at
// once, until each is final or Options.CallTimeout passed.
func (s *session) pollOpenTasks() {
	tp, ok := s.opts.Pipeline.(TaskPoller)
	if !ok {
		return
	}
	ids := tp.OpenTasks(s.opts.Session)
	if len(ids) == 0 {
		return
	}
	deadline := time.Now().Add(s.opts.CallTimeout)
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() { s.pollTask(tp, id, deadline) })
	}
	wg.Wait()
}

// pollTask polls one task until its status is final, the upstream answers
// with an error or is gone, or deadline.
func (s *session) pollTask(tp TaskPoller, id string, deadline time.Time) {
	var meta []byte
	if m := s.cat.listMeta.Load(); m != nil {
		meta = *m
	}
	params := taskGetParams(meta, id)
	for {
		m, err := s.ownRequest(methodTasksGet, params)
		if err != nil || m.env.Result == nil {
			s.log.Printf("the proxy's tasks/get of task %q at the session end got no status; the task's call is of unknown outcome", id)
			return
		}
		tp.TaskMessage(TaskMessage{Session: s.opts.Session, Method: methodTasksGet, TaskID: id, Body: json.RawMessage(m.env.Result)})
		status, _ := wire.Unquote(lookupMember(m.env.Result, "status"))
		if status == "completed" || status == "failed" || status == "cancelled" {
			return
		}
		wait := taskPollWait(m.env.Result)
		if time.Now().Add(wait).After(deadline) {
			s.log.Printf("task %q is still %s after --upstream-timeout at the session end; its call is of unknown outcome", id, status)
			return
		}
		t := time.NewTimer(wait)
		<-t.C
	}
}

// taskPollWait is the task's suggested poll interval (2025-11-25
// pollInterval, the extension's pollIntervalMs), within the proxy's
// bounds.
func taskPollWait(task []byte) time.Duration {
	v := lookupMember(task, "pollIntervalMs")
	if v == nil {
		v = lookupMember(task, "pollInterval")
	}
	var ms float64
	if json.Unmarshal(v, &ms) != nil {
		return maxTaskPoll
	}
	return min(max(time.Duration(ms*float64(time.Millisecond)), minTaskPoll), maxTaskPoll)
}

// taskGetParams are the params of the proxy's own tasks/get.
func taskGetParams(meta []byte, id string) []byte {
	b := []byte(`{"taskId":`)
	b = appendQuoted(b, id)
	if meta != nil {
		b = append(b, `,"_meta":`...)
		b = append(b, meta...)
	}
	return append(b, '}')
}

// lookupMember is obj's member name, nil when absent or obj is no object.
func lookupMember(obj []byte, name string) []byte {
	if len(obj) == 0 || obj[0] != '{' {
		return nil
	}
	v, _, _ := wire.Lookup(obj, name)
	return v
}

// isTaskRequest reports whether method is a task request whose answer the
// relay reports.
func isTaskRequest(method string) bool {
	return method == methodTasksGet || method == methodTasksResult || method == methodTasksCancel
}

// taskIDOf is obj's string taskId member ("" when none).
func taskIDOf(obj []byte) string {
	if len(obj) == 0 || obj[0] != '{' {
		return ""
	}
	v, _, ok := wire.Lookup(obj, "taskId")
	if !ok {
		return ""
	}
	id, _ := wire.Unquote(v)
	return id
}

// observeTaskAnswer reports the upstream's answer to the agent's task
// request p.
func (s *session) observeTaskAnswer(p *pending, env wire.Envelope) {
	o, ok := s.opts.Pipeline.(TaskObserver)
	if !ok || p.taskMethod == "" || p.taskID == "" {
		return
	}
	var body json.RawMessage
	if env.Error == nil {
		body = json.RawMessage(env.Result)
	}
	o.TaskMessage(TaskMessage{Session: s.opts.Session, Method: p.taskMethod, TaskID: p.taskID, Body: body})
}

// observeTaskNotice reports an upstream notification of a task's status.
func (s *session) observeTaskNotice(env wire.Envelope) {
	if env.Method != methodTaskStatus2025 && env.Method != methodTaskStatusNotices {
		return
	}
	o, ok := s.opts.Pipeline.(TaskObserver)
	if !ok {
		return
	}
	params := env.Params
	id := taskIDOf(params)
	if id == "" {
		// The extension's notification may carry the task under "task".
		if t, _, ok := wire.Lookup(params, "task"); ok {
			params, id = t, taskIDOf(t)
		}
	}
	if id == "" {
		return
	}
	o.TaskMessage(TaskMessage{Session: s.opts.Session, Method: env.Method, TaskID: id, Body: json.RawMessage(params)})
}
