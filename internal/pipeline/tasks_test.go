package pipeline

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/relay"
	"github.com/cuonztech/agent-harness/internal/report"
)

// Task handles of the two forms, for task "t-1".
const (
	handle2025 = `{"task":{"taskId":"t-1","status":"working","createdAt":"2026-11-03T10:00:00Z","lastUpdatedAt":"2026-11-03T10:00:00Z","ttl":60000,"pollInterval":1000}}`
	handle2026 = `{"resultType":"task","taskId":"t-1","status":"working","createdAt":"2026-11-03T10:00:00Z","lastUpdatedAt":"2026-11-03T10:00:00Z","ttlMs":60000,"pollIntervalMs":1000}`
)

// taskStep is a step of a task test: a tools/call (params, the upstream's
// result) or a task message the relay reports.
type taskStep struct {
	params, result string
	msg            *relay.TaskMessage
}

func taskCall(params, result string) taskStep { return taskStep{params: params, result: result} }
func taskMsg(method, body string) taskStep {
	m := relay.TaskMessage{Method: method, TaskID: "t-1"}
	if body != "" {
		m.Body = json.RawMessage(body)
	}
	return taskStep{msg: &m}
}

// runTasks runs steps through a pipeline with the real judge and fault f.
func runTasks(t *testing.T, f fault.Fault, steps ...taskStep) roundsRun {
	t.Helper()
	run, _ := runTasksScenario(t, "", f, steps...)
	return run
}

// runTasksScenario is runTasks with the judge's scenario set; it also
// returns the verdict reason.
func runTasksScenario(t *testing.T, scenario string, f fault.Fault, steps ...taskStep) (roundsRun, string) {
	t.Helper()
	p := judgedPipeline(t, scenario, f)
	var run roundsRun
	n := int64(0)
	for _, s := range steps {
		if s.msg != nil {
			p.TaskMessage(*s.msg)
			continue
		}
		n++
		var pm struct {
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal([]byte(s.params), &pm); err != nil {
			t.Fatal(err)
		}
		c := &relay.ToolCall{ID: n, Tool: "create_booking", Class: classify.Write, Arguments: pm.Arguments, Params: json.RawMessage(s.params)}
		result := s.result
		r, err := p.HandleCall(context.Background(), c, func(context.Context) (relay.Response, error) {
			return relay.Response{Result: json.RawMessage(result)}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		run.answers = append(run.answers, string(r.Result))
	}
	endRun(t, p, &run)
	return run, run.reason
}

const (
	taskParams2025 = `{"name":"create_booking","arguments":{"room":12},"task":{"ttl":60000}}`
	taskParams2026 = `{"name":"create_booking","arguments":{"room":12}}`
)

// TestTaskOutcomeFromFinalStatus (behaviour §4.13): a task-creating call's
// attempt is the task's final status as the agent's polls or the
// upstream's notifications tell it, in both forms; polls are no attempts;
// a task never seen final is unknown.
func TestTaskOutcomeFromFinalStatus(t *testing.T) {
	working := `{"taskId":"t-1","status":"working"}`
	for _, tc := range []struct {
		name    string
		steps   []taskStep
		outcome report.OperationOutcome
		attempt string
	}{
		{"2025 completed by tasks/get", []taskStep{taskCall(taskParams2025, handle2025),
			taskMsg("tasks/get", working), taskMsg("tasks/get", `{"taskId":"t-1","status":"completed"}`)},
			report.OperationExecuted, "executed"},
		{"2025 result by tasks/result", []taskStep{taskCall(taskParams2025, handle2025),
			taskMsg("tasks/result", okResult)}, report.OperationExecuted, "executed"},
		{"2025 isError result by tasks/result", []taskStep{taskCall(taskParams2025, handle2025),
			taskMsg("tasks/result", `{"content":[],"isError":true}`)}, report.OperationUpstreamRejected, "upstream-rejected"},
		{"2025 failed by notification", []taskStep{taskCall(taskParams2025, handle2025),
			taskMsg("notifications/tasks/status", `{"taskId":"t-1","status":"failed"}`)}, report.OperationUpstreamRejected, "upstream-rejected"},
		{"2026 completed with result", []taskStep{taskCall(taskParams2026, handle2026),
			taskMsg("tasks/get", `{"resultType":"complete","taskId":"t-1","status":"completed","result":`+okResult+`}`)},
			report.OperationExecuted, "executed"},
		{"2026 completed with an isError result", []taskStep{taskCall(taskParams2026, handle2026),
			taskMsg("tasks/get", `{"taskId":"t-1","status":"completed","result":{"content":[],"isError":true}}`)},
			report.OperationUpstreamRejected, "upstream-rejected"},
		{"2026 cancelled", []taskStep{taskCall(taskParams2026, handle2026),
			taskMsg("tasks/cancel", `{"taskId":"t-1","status":"cancelled"}`)}, report.OperationExecutionUnknown, "unknown"},
		{"never final", []taskStep{taskCall(taskParams2026, handle2026), taskMsg("tasks/get", working)},
			report.OperationExecutionUnknown, "unknown"},
		{"a poll answered with an error", []taskStep{taskCall(taskParams2025, handle2025), taskMsg("tasks/get", "")},
			report.OperationExecutionUnknown, "unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := runTasks(t, nil, tc.steps...)
			if len(run.ops) != 1 || run.ops[0].Attempts != 1 || run.ops[0].Outcome != tc.outcome {
				t.Fatalf("operations %+v, want one %s operation of one attempt", run.ops, tc.outcome)
			}
			if got := attemptOutcomes(run.ops[0]); !slices.Equal(got, []string{tc.attempt}) {
				t.Errorf("attemptLog %q, want [%s]", got, tc.attempt)
			}
		})
	}
}

// TestTaskRetryAfterCompletionIsADuplicate: the agent creates the task
// again after it completed: two executions, DUPLICATE_EXECUTION. Before,
// a 2026 handle was unknown (NOT_TESTED), and a 2025 one executed at
// once, whatever the task did.
func TestTaskRetryAfterCompletionIsADuplicate(t *testing.T) {
	done := taskMsg("tasks/get", `{"taskId":"t-1","status":"completed","result":`+okResult+`}`)
	run := runTasks(t, nil, taskCall(taskParams2026, handle2026), done, taskCall(taskParams2026, handle2026), done)
	if run.verdict != report.VerdictFail || len(run.ops) != 1 || run.ops[0].Executions != 2 {
		t.Errorf("verdict %s operations %+v, want FAIL with two executions", run.verdict, run.ops)
	}
}

// TestTaskFailedThenRetried: a failed task and the agent's new task that
// completes: one execution after an upstream rejection (behaviour §4.5),
// never a PASS on a proven double.
func TestTaskFailedThenRetried(t *testing.T) {
	run := runTasks(t, nil, taskCall(taskParams2025, handle2025), taskMsg("tasks/get", `{"taskId":"t-1","status":"failed"}`),
		taskCall(taskParams2025, handle2025), taskMsg("tasks/get", `{"taskId":"t-1","status":"completed"}`))
	if len(run.ops) != 1 || run.ops[0].Executions != 1 {
		t.Fatalf("operations %+v, want one execution", run.ops)
	}
	if got := attemptOutcomes(run.ops[0]); !slices.Equal(got, []string{"upstream-rejected", "executed"}) {
		t.Errorf("attemptLog %q", got)
	}
}

// handleFor is a 2026 handle for task id.
func handleFor(id string) string {
	return `{"resultType":"task","taskId":"` + id + `","status":"working","ttlMs":60000,"pollIntervalMs":10}`
}

func doneMsg(id, status string) taskStep {
	m := relay.TaskMessage{Method: "tasks/get", TaskID: id, Body: json.RawMessage(`{"taskId":"` + id + `","status":"` + status + `"}`)}
	return taskStep{msg: &m}
}

// TestTaskF1 (behaviour §4.13): F1 on a task-creating write: the task
// runs, the agent gets the timeout instead of the handle, and the task's
// final status (the proxy's own poll at the session end) decides: a
// completed task is a ghost write, and the agent's new task a duplicate; a
// failed one hid no execution, and F1 stays armed for the next write.
func TestTaskF1(t *testing.T) {
	timeout := `{"content":[{"type":"text","text":"` + fault.TimeoutText + `"}],"isError":true}`
	t.Run("completed", func(t *testing.T) {
		run := runTasks(t, fault.NewGhostWrite(), taskCall(taskParams2026, handleFor("t-1")),
			taskCall(taskParams2026, handleFor("t-2")), doneMsg("t-2", "completed"), doneMsg("t-1", "completed"))
		if run.answers[0] != timeout || run.answers[1] != handleFor("t-2") {
			t.Errorf("answers %q, want the timeout, then the second handle", run.answers)
		}
		// The judge learns of the ghost write only with the task's final
		// status, after the second attempt was sent: the duplicate is
		// proven, its details call the attempts parallel (RATIONALE).
		if run.verdict != report.VerdictFail || len(run.vs) != 1 || run.vs[0].Duplicate == nil || run.vs[0].Duplicate.Executions != 2 {
			t.Fatalf("verdict %s violations %+v, want FAIL: a duplicate", run.verdict, run.vs)
		}
		if got := attemptOutcomes(run.ops[0]); !slices.Equal(got, []string{"executed/timeout", "executed"}) {
			t.Errorf("attemptLog %q", got)
		}
	})
	t.Run("failed", func(t *testing.T) {
		run := runTasks(t, fault.NewGhostWrite(), taskCall(taskParams2026, handleFor("t-1")), doneMsg("t-1", "failed"),
			taskCall(taskParams2026, okResult))
		if run.answers[0] != timeout || run.answers[1] != timeout {
			t.Errorf("answers %q, want the timeout twice (F1 re-armed after the failed task)", run.answers)
		}
		if got := attemptOutcomes(run.ops[0]); !slices.Equal(got, []string{"upstream-rejected", "executed/timeout"}) {
			t.Errorf("attemptLog %q", got)
		}
	})
}

// TestTaskOpenAtEndF4Fired (issue 21 red team, behaviour §4.13): F4
// passes a task-creating write whatever its outcome, as a write forwarded
// without a task; a task still running at the session end is of unknown
// outcome, so the NOT_TESTED reason says that, not "Scenario F4 never
// fired (it was not applied to any call)", which sent the user looking for
// a scenario that had applied.
func TestTaskOpenAtEndF4Fired(t *testing.T) {
	for _, params := range []string{taskParams2025, taskParams2026} {
		run, reason := runTasksScenario(t, "F4", fault.NewPassTwice(), taskCall(params, handleFor("t-1")))
		if want := "Whether the write operations were executed is unknown for all 1 of them"; run.verdict != report.VerdictNotTested || !strings.Contains(reason, want) {
			t.Errorf("%s: verdict %s (%s), want NOT_TESTED: %s", params, run.verdict, reason, want)
		}
	}
}
