package relay

import (
	"encoding/json"

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
