package relay

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
)

// taskPipeline is a recordingPipeline that follows tasks.
type taskPipeline struct {
	recordingPipeline
	mu   sync.Mutex
	seen []string
}

func (p *taskPipeline) TaskMessage(m TaskMessage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen = append(p.seen, m.Session+" "+m.Method+" "+m.TaskID+" "+string(m.Body))
}

// TestRelayReportsTaskMessages (behaviour §4.13): the agent's tasks/get
// and the upstream's status notification reach the agent unchanged, and
// the pipeline is told of both, the answer with the request's taskId.
func TestRelayReportsTaskMessages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pl := &taskPipeline{}
		a := startRelay(t, &fakeUpstream{tools: testTools}, func(o *Options) { o.Pipeline = pl; o.Session = "s1" })
		a.initialize()
		a.send(`{"jsonrpc":"2.0","id":9,"method":"tasks/get","params":{"taskId":"t-1"}}`)
		if got, want := a.recv(), `{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t-1","status":"working"}}`; got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
		if got, want := a.recv(), `{"jsonrpc":"2.0","id":9,"result":{"taskId":"t-1","status":"completed"}}`; got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
		a.end()
		want := []string{
			`s1 notifications/tasks/status t-1 {"taskId":"t-1","status":"working"}`,
			`s1 tasks/get t-1 {"taskId":"t-1","status":"completed"}`,
		}
		if !slices.Equal(pl.seen, want) {
			t.Errorf("pipeline saw\n%s\nwant\n%s", strings.Join(pl.seen, "\n"), strings.Join(want, "\n"))
		}
	})
}

// pollingPipeline is a taskPipeline with open tasks to poll.
type pollingPipeline struct {
	taskPipeline
	open []string
}

func (p *pollingPipeline) OpenTasks(session string) []string {
	if session != "s1" {
		return nil
	}
	return p.open
}

// TestRelayPollsOpenTasksAtSessionEnd (behaviour §4.13): at the session
// end the relay asks the upstream for each open task with a tasks/get of
// its own (an id the agent cannot have) and tells the pipeline the status.
func TestRelayPollsOpenTasksAtSessionEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pl := &pollingPipeline{open: []string{"t-1"}}
		up := &fakeUpstream{tools: testTools}
		a := startRelay(t, up, func(o *Options) { o.Pipeline = pl; o.Session = "s1" })
		a.initialize()
		a.end()
		if !hasLine(up.lines(), `"id":"agent-harness/2","method":"tasks/get","params":{"taskId":"t-1"}`) {
			t.Errorf("no tasks/get of the proxy's own reached the upstream: %q", up.lines())
		}
		if !slices.Contains(pl.seen, `s1 tasks/get t-1 {"taskId":"t-1","status":"completed"}`) {
			t.Errorf("pipeline saw %q, want the polled status", pl.seen)
		}
	})
}
