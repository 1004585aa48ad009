package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/cuonztech/agent-harness/internal/mcpschema"
)

// TestRelayOwnResultsValidForRevision walks every result the relay makes
// itself — the tool error of each pipeline error (UPSTREAM_UNAVAILABLE
// before and after sending, no answer within the call timeout, the session
// ending, a batch answer, a full queue, any other), a result the pipeline
// made (a fault's, a replaced one), an audit tool's answer and its error,
// and the tools/list of the audit tools alone — as the agent receives it,
// and checks it against the published schema of the call's revision
// (behaviour §3.3): a request carrying 2026-07-28 in its SEP-2575 _meta
// gets resultType "complete" (and a ListToolsResult its cacheScope and
// ttlMs); one of a 2025-06-18 session gets the results as before.
func TestRelayOwnResultsValidForRevision(t *testing.T) {
	errs := []error{
		fmt.Errorf("x: %w", ErrUpstreamUnavailable), ErrNoAnswer, ErrSessionEnded,
		errBatchAnswer, errQueueFull, errors.New("boom"),
	}
	for _, rev := range []string{"2025-06-18", "2026-07-28"} {
		meta := ""
		if rev == "2026-07-28" {
			meta = `,"_meta":{` + statelessMeta + `}`
		}
		t.Run(rev, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := startRelay(t, &fakeUpstream{noTools: true}, func(o *Options) {
					o.ExtraTools = []json.RawMessage{json.RawMessage(`{"name":"cuonztech__get_report","inputSchema":{"type":"object"}}`)}
					o.LocalTool = func(_ context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
						if string(args) == `{"fail":true}` {
							return nil, errors.New("no")
						}
						return json.RawMessage(`{"content":[{"type":"text","text":"local"}]}`), nil
					}
				})
				a.initialize()
				check := func(what, def, line string) {
					t.Helper()
					var env struct{ Result json.RawMessage }
					if err := json.Unmarshal([]byte(line), &env); err != nil || env.Result == nil {
						t.Fatalf("%s: no result: %s", what, line)
					}
					if v := mcpschema.Check(rev, def, env.Result); len(v) > 0 {
						t.Errorf("%s: not a valid %s of %s: %q\n%s", what, def, rev, v, env.Result)
					}
					if has := strings.Contains(string(env.Result), `"resultType":"complete"`); has != (rev == "2026-07-28") {
						t.Errorf("%s: resultType present %t in %s", what, has, env.Result)
					}
				}
				a.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + strings.TrimPrefix(meta, ",") + `}}`)
				check("the audit tools' tools/list", "ListToolsResult", a.recv())
				for i, args := range []string{`{}`, `{"fail":true}`} {
					a.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"cuonztech__get_report","arguments":%s%s}}`, 10+i, args, meta))
					check("audit tool "+args, "CallToolResult", a.recv())
				}
				a.end()
			})
		})
		t.Run(rev+" pipeline", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				n := 0
				pl := &recordingPipeline{do: func(ctx context.Context, call *ToolCall, fwd Forward) (Response, error) {
					n++
					if n <= len(errs) {
						return Response{}, errs[n-1]
					}
					return Response{Result: json.RawMessage(`{"content":[{"type":"text","text":"made"}],"isError":true}`)}, nil
				}}
				a := startRelay(t, &fakeUpstream{tools: testTools}, func(o *Options) { o.Pipeline = pl })
				a.initialize()
				for i := range len(errs) + 1 {
					what := "a result the pipeline made"
					if i < len(errs) {
						what = "pipeline error " + errs[i].Error()
					}
					a.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"create_booking","arguments":{}%s}}`, 20+i, meta))
					line := a.recv()
					var env struct{ Result json.RawMessage }
					if err := json.Unmarshal([]byte(line), &env); err != nil || env.Result == nil {
						t.Fatalf("%s: no result: %s", what, line)
					}
					if v := mcpschema.Check(rev, "CallToolResult", env.Result); len(v) > 0 {
						t.Errorf("%s: not a valid CallToolResult of %s: %q\n%s", what, rev, v, env.Result)
					}
					if has := strings.Contains(string(env.Result), `"resultType":"complete"`); has != (rev == "2026-07-28") {
						t.Errorf("%s: resultType present %t in %s", what, has, env.Result)
					}
				}
				a.end()
			})
		})
	}
}
