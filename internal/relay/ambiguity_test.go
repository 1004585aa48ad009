package relay

import (
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/cuonztech/agent-harness/internal/classify"
)

// The fake upstream decodes with encoding/json, which matches member names
// case-insensitively: each of these messages would run create_booking (or
// run it with other arguments) while the relay reads something else.
func TestRelayRefusesCaseVariants(t *testing.T) {
	tests := []struct {
		name, msg string
		warn      string // with "id":7 the agent gets it as an Invalid Request error
	}{
		{"NAME beside name",
			`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_booking","NAME":"create_booking","arguments":{}}}`,
			`member "NAME" differs from "name"`},
		{"Arguments beside arguments",
			`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"create_booking","arguments":{"room":"1"},"Arguments":{"room":"12"}}}`,
			`member "Arguments" differs from "arguments"`},
		{"escaped _Meta",
			`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"create_booking","arguments":{},"_\u004deta":{}}}`,
			`member "_Meta" differs from "_meta"`},
		{"Method",
			`{"jsonrpc":"2.0","id":7,"Method":"tools/call","params":{"name":"create_booking","arguments":{}}}`,
			`member "Method" differs from "method"`},
		{"ID without id: dropped",
			`{"jsonrpc":"2.0","ID":7,"method":"tools/call","params":{"name":"create_booking","arguments":{}}}`,
			`member "ID" differs from "id"`},
		{"Params",
			`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_booking"},"Params":{"name":"create_booking"}}`,
			`member "Params" differs from "params"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				up := &fakeUpstream{tools: testTools}
				pl := &recordingPipeline{}
				a := startRelay(t, up, func(o *Options) { o.Pipeline = pl })
				a.initialize()
				a.send(tt.msg)
				if strings.Contains(tt.msg, `"id":7`) {
					parts := strings.SplitN(tt.warn, `"`, 5)
					want := `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"agent-harness: member \"` + parts[1] +
						`\" differs from \"` + parts[3] + `\" only in letter case; servers disagree on what it means, so the message was not forwarded"}}`
					if got := a.recv(); got != want {
						t.Errorf("answer\n got %s\nwant %s", got, want)
					}
				}
				a.send(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)
				if got := a.recv(); got != `{"jsonrpc":"2.0","id":8,"result":{}}` {
					t.Errorf("ping answer %s", got)
				}
				if err := a.end(); err != nil {
					t.Fatal(err)
				}
				for _, l := range up.lines() {
					if l == tt.msg {
						t.Errorf("the message reached the upstream")
					}
				}
				if len(pl.calls) != 0 {
					t.Errorf("the pipeline saw %d calls", len(pl.calls))
				}
				if !strings.Contains(a.stderr.String(), "WARNING: agent-harness: "+tt.warn) {
					t.Errorf("stderr %q lacks %q", a.stderr.String(), tt.warn)
				}
			})
		})
	}
}

// An upstream that echoes a numeric id in another spelling (2.0 → 2, or
// a JavaScript server rounding 2^53+1) still answers the agent's call: the
// pipeline gets its result, and the agent gets it with its own id bytes,
// once.
func TestRelayIDSpellings(t *testing.T) {
	jsRound := func(id json.RawMessage) string {
		f, err := strconv.ParseFloat(string(id), 64)
		if err != nil {
			return string(id)
		}
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	tests := []struct {
		name string
		id   string
		as   func(json.RawMessage) string
	}{
		{"2.0 echoed as 2", `2.0`, jsRound},
		{"20e-1 echoed as 2", `20e-1`, jsRound},
		{"2 echoed as 2.0", `2`, func(id json.RawMessage) string { return string(id) + `.0` }},
		{"2^53+1 rounded", `9007199254740993`, jsRound},
		{"2^53+1 and 2^53 are two ids", `9007199254740992`, jsRound},
		{"huge exponent", `1e400`, jsRound},
		{"string escaped", `"\u0061"`, nil},
		{"string", `"a"`, nil},
		{"object (not a usable id)", `{"x":[1]}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var fwdErr error
				var fwdResult string
				up := &fakeUpstream{tools: testTools}
				a := startRelay(t, up, func(o *Options) {
					o.Pipeline = &recordingPipeline{do: func(ctx context.Context, _ *ToolCall, fwd Forward) (Response, error) {
						r, err := fwd(ctx)
						fwdErr, fwdResult = err, string(r.Result)
						return r, err
					}}
				})
				a.initialize()
				up.idAs = tt.as
				a.send(`{"jsonrpc":"2.0","id":` + tt.id + `,"method":"tools/call","params":{"name":"create_booking","arguments":{}}}`)
				want := `{"jsonrpc":"2.0","id":` + tt.id + `,"result":{"content":[{"type":"text","text":"called create_booking"}]}}`
				if got := a.recv(); got != want {
					t.Errorf("got  %s\nwant %s", got, want)
				}
				a.in.Close()
				rest, _ := io.ReadAll(a.out)
				if len(rest) > 0 {
					t.Errorf("more answers: %s", rest)
				}
				<-a.done
				if fwdErr != nil || fwdResult != `{"content":[{"type":"text","text":"called create_booking"}]}` {
					t.Errorf("forward returned %q, %v", fwdResult, fwdErr)
				}
			})
		})
	}
}

// The agent calls a tool the upstream has just added: the relay forwarded
// notifications/tools/list_changed after it started re-listing, and the
// call waits for the re-listing instead of being taken for a call of an
// unknown tool.
func TestRelayCallAfterListChangedWaitsForRelist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		up := &fakeUpstream{tools: testTools, holdRelist: make(chan struct{})}
		pl := &recordingPipeline{}
		a := startRelay(t, up, func(o *Options) { o.Pipeline = pl })
		a.initialize()
		a.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add_tool","arguments":{}}}`)
		if got := a.recv(); got != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` {
			t.Fatalf("got %s", got)
		}
		a.recv() // add_tool's answer
		a.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_widget","arguments":{}}}`)
		synctest.Wait() // the call is read and waits (or, wrongly, ran)
		close(up.holdRelist)
		if got := a.recv(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":2,"result"`) {
			t.Errorf("got %s", got)
		}
		a.end()
		if len(pl.calls) != 2 || pl.calls[1].Tool != "create_widget" || pl.calls[1].Class != classify.Write {
			t.Errorf("pipeline calls %+v, want create_widget as a write", pl.calls)
		}
	})
}

// The agent cancels a write in flight; the upstream executes it anyway and
// answers: the pipeline (the judge) gets that answer, not a "not executed".
func TestRelayCancelledCallStillObserved(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		up := &fakeUpstream{tools: testTools}
		release := make(chan struct{})
		var fwdErr error
		var fwdResult string
		pl := &recordingPipeline{do: func(ctx context.Context, _ *ToolCall, fwd Forward) (Response, error) {
			<-release // the cancellation arrives while the call is in the pipeline
			r, err := fwd(ctx)
			fwdErr, fwdResult = err, string(r.Result)
			return r, err
		}}
		a := startRelay(t, up, func(o *Options) { o.Pipeline = pl })
		a.initialize()
		a.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"create_booking","arguments":{}}}`)
		a.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5.0}}`)
		synctest.Wait()
		close(release)
		synctest.Wait()
		if fwdErr != nil || !strings.Contains(fwdResult, "called create_booking") {
			t.Errorf("forward returned %q, %v; want the upstream's result", fwdResult, fwdErr)
		}
		a.end()
	})
}
