package e2e

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// taskRun runs @modelcontextprotocol/server-everything's
// simulate-research-query (a tool that requires a task, MCP 2025-11-25
// experimental) through the proxy: create the task, then what settle does
// with its id; it returns the report file's verdict and attempt outcomes.
func taskRun(t *testing.T, settle func(p *peer, taskID string), flags ...string) (verdict string, attempts []string) {
	t.Helper()
	cmdline := npmServer(t, "server-everything")
	report := filepath.Join(t.TempDir(), "report.json")
	flags = append(append(npmProxyFlags(cmdline), "--write-tools", "simulate-research-query", "--report-file", report), flags...)
	p := startTaskSession(t, flags...)
	// The task tools are registered after initialization.
	p.waitFor(func(m []byte) bool { return strings.Contains(string(m), `"method":"notifications/tools/list_changed"`) })
	var created struct {
		Result struct {
			Task struct {
				TaskID string `json:"taskId"`
			} `json:"task"`
		} `json:"result"`
	}
	resp := p.request("1", "tools/call", `{"name":"simulate-research-query","arguments":{"topic":"go"},"task":{"ttl":60000}}`)
	if err := json.Unmarshal(resp, &created); err != nil {
		t.Fatalf("tools/call answered %s", resp)
	}
	if created.Result.Task.TaskID == "" {
		// F1: the timeout instead of the handle.
		if !strings.Contains(string(resp), "timed out") {
			t.Fatalf("tools/call answered %s, want a task handle or the timeout", resp)
		}
	}
	settle(p, created.Result.Task.TaskID)
	return endTaskSession(t, p, report)
}

// TestProxyNPMTaskResearchQuery (behaviour §4.13): a real task-based tool.
// The agent's tasks/result tells the task's result: one attempt, executed,
// PASS; polls are no attempts. A task the agent cancels has an unknown
// outcome (NOT_TESTED), where the handle used to count as an execution at
// once (PASS). The subtests run in parallel: each has its own proxy and
// server, and the tool takes about 5 s of its own timers per task.
func TestProxyNPMTaskResearchQuery(t *testing.T) {
	t.Parallel()
	t.Run("result", func(t *testing.T) {
		t.Parallel()
		verdict, attempts := taskRun(t, func(p *peer, id string) {
			p.request("2", "tasks/get", `{"taskId":"`+id+`"}`)
			if r := p.request("3", "tasks/result", `{"taskId":"`+id+`"}`); !strings.Contains(string(r), "Research Report") {
				t.Errorf("tasks/result answered %s", r)
			}
		})
		if verdict != "PASS" || !slices.Equal(attempts, []string{"executed"}) {
			t.Errorf("verdict %s attempts %q, want PASS and one executed attempt", verdict, attempts)
		}
	})
	// F1: the agent gets the timeout instead of the handle and creates the
	// task again; the proxy polls the first task itself at the session end
	// (it completes within --upstream-timeout): two executions.
	t.Run("F1", func(t *testing.T) {
		t.Parallel()
		verdict, attempts := taskRun(t, func(p *peer, id string) {
			if id != "" {
				t.Fatalf("the agent got task %q, want the timeout", id)
			}
			var again struct {
				Result struct {
					Task struct {
						TaskID string `json:"taskId"`
					} `json:"task"`
				} `json:"result"`
			}
			resp := p.request("2", "tools/call", `{"name":"simulate-research-query","arguments":{"topic":"go"},"task":{"ttl":60000}}`)
			if json.Unmarshal(resp, &again) != nil || again.Result.Task.TaskID == "" {
				t.Fatalf("the re-send answered %s, want a task handle", resp)
			}
			p.request("3", "tasks/result", `{"taskId":"`+again.Result.Task.TaskID+`"}`)
		}, "--scenario", "F1")
		if verdict != "FAIL" || !slices.Equal(attempts, []string{"executed/timeout", "executed"}) {
			t.Errorf("verdict %s attempts %q, want FAIL: a ghost write and its duplicate", verdict, attempts)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		t.Parallel()
		verdict, attempts := taskRun(t, func(p *peer, id string) {
			if r := p.request("2", "tasks/cancel", `{"taskId":"`+id+`"}`); !strings.Contains(string(r), `"cancelled"`) {
				t.Errorf("tasks/cancel answered %s", r)
			}
		})
		if verdict != "NOT_TESTED" || !slices.Equal(attempts, []string{"unknown"}) {
			t.Errorf("verdict %s attempts %q, want NOT_TESTED and one unknown attempt", verdict, attempts)
		}
	})
}
