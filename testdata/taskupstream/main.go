// Command taskupstream is a small MCP server on stdio whose one tool,
// create_job, answers with a task handle (behaviour §4.13), for the
// end-to-end tests of tasks: the MCP 2025-11-25 experimental form when the
// call's params carry "task", else the 2026-07-28 tasks extension's
// (resultType "task"). A task reports "working" to its first tasks/get and
// its final status to the next: "completed" (with the result inlined in the
// 2026 form), or "failed" when the call's arguments say {"fail": true}.
// Every job that is not to fail runs when its task is created and is
// appended as a line to the file named by -log: the ground truth.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
)

type task struct {
	form2026 bool
	fail     bool
	polls    int
}

func main() {
	logPath := flag.String("log", "", "file to append each completed job to")
	flag.Parse()
	tasks := map[string]*task{}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
				Task      json.RawMessage `json:"task"`
				TaskID    string          `json:"taskId"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || m.ID == nil {
			continue // notifications
		}
		var result string
		switch m.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"tasks":{"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"taskupstream","version":"1"}}`
		case "tools/list":
			result = `{"tools":[{"name":"create_job","inputSchema":{"type":"object","properties":{"room":{"type":"string"},"fail":{"type":"boolean"}}},"execution":{"taskSupport":"optional"}}]}`
		case "tools/call":
			var a struct {
				Room string `json:"room"`
				Fail bool   `json:"fail"`
			}
			_ = json.Unmarshal(m.Params.Arguments, &a)
			id := fmt.Sprintf("job-%d", len(tasks)+1)
			t := &task{form2026: m.Params.Task == nil, fail: a.Fail}
			tasks[id] = t
			if !a.Fail && *logPath != "" {
				logJob(*logPath, a.Room)
			}
			if t.form2026 {
				result = `{"resultType":"task","taskId":"` + id + `","status":"working","ttlMs":60000,"pollIntervalMs":10}`
			} else {
				result = `{"task":{"taskId":"` + id + `","status":"working","ttl":60000,"pollInterval":10}}`
			}
		case "tasks/get":
			t := tasks[m.Params.TaskID]
			if t == nil {
				fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"unknown task"}}`+"\n", m.ID)
				out.Flush()
				continue
			}
			t.polls++
			result = status(m.Params.TaskID, t)
		default:
			result = `{}`
		}
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", m.ID, result)
		out.Flush()
	}
}

// logJob appends a job to the ground truth.
func logJob(path, room string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	fmt.Fprintf(f, "job %s\n", room)
	f.Close()
}

// status is a task's state at its t.polls-th tasks/get: final from the
// second on.
func status(id string, t *task) string {
	switch {
	case t.polls < 2:
		return `{"taskId":"` + id + `","status":"working","pollInterval":10,"pollIntervalMs":10}`
	case t.fail:
		return `{"taskId":"` + id + `","status":"failed","statusMessage":"the job failed"}`
	}
	if t.form2026 {
		return `{"resultType":"complete","taskId":"` + id + `","status":"completed","result":{"content":[{"type":"text","text":"job done"}]}}`
	}
	return `{"taskId":"` + id + `","status":"completed"}`
}
