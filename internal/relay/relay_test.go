package relay

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/cuonztech/agent-harness/internal/classify"
)

// fakeUpstream is an in-process MCP server on newline-delimited JSON-RPC,
// used through Options.Upstream (an IOUpstream). Its tool objects are kept as raw text.
type fakeUpstream struct {
	tools    []string // raw tool objects
	pageSize int
	noTools  bool
	// hang lists tools whose calls are never answered.
	hang map[string]bool
	// block holds the answer to calls of a tool until its channel is
	// closed (the upstream reads nothing meanwhile).
	block map[string]chan struct{}
	// discover is the result of server/discover; empty: the method is
	// unknown (a legacy server).
	discover string
	// strict refuses requests of the legacy protocol (no SEP-2575 _meta
	// protocol version) before initialize, like the go-sdk server.
	strict bool
	// idless tools are answered with an error whose id is null (the
	// upstream's own parse error) instead of a response.
	idless map[string]bool
	// idAs, when set, rewrites the id of every answer (the way another
	// JSON implementation echoes it).
	idAs func(id json.RawMessage) string
	// holdRelist, when set, holds the answer to the proxy's own tools/list
	// requests after add_tool until it is closed.
	holdRelist chan struct{}
	added      bool
	// relistAs, when set, replaces the tool list on add_tool (the
	// upstream re-lists its tools differently).
	relistAs []string
	// batch lists tools whose answer is sent inside a JSON-RPC batch;
	// garbled ones get a line that is not JSON (and no answer).
	batch, garbled map[string]bool
	// twice lists tools whose answer is sent again, as a stale copy, just
	// before the answer to the next call of the tool, which is rejected
	// (isError).
	twice    map[string]bool
	lastLine map[string]string
	// stall, when set, makes the upstream stop reading its input after
	// a call of the tool "stall" until it is closed.
	stall chan struct{}
	// askedID: a call of "ask_roots" sends the agent a roots/list request
	// with id 1 and is answered when the agent's answer has come (the
	// call's id is kept here meanwhile).
	askedID json.RawMessage

	in  io.Reader      // what the relay writes
	out io.WriteCloser // what the relay reads

	mu       sync.Mutex
	received []string // every line received, in order
	started  bool     // only the serve goroutine uses it
}

// conn is the relay's end of the fake upstream.
type conn struct {
	io.Reader
	io.Writer
	close func() error
}

func (c conn) Close() error { return c.close() }

func (f *fakeUpstream) start() io.ReadWriteCloser {
	relayToUp, upIn := io.Pipe()
	upOut, upToRelay := io.Pipe()
	f.in, f.out = relayToUp, upToRelay
	go f.serve()
	return conn{Reader: upOut, Writer: upIn, close: func() error {
		upIn.Close()
		upOut.Close()
		return nil
	}}
}

func (f *fakeUpstream) serve() {
	defer f.out.Close()
	r := bufio.NewReader(f.in)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		f.mu.Lock()
		f.received = append(f.received, strings.TrimSpace(line))
		f.mu.Unlock()
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name   string `json:"name"`
				Cursor string `json:"cursor"`
				Meta   struct {
					Version string `json:"io.modelcontextprotocol/protocolVersion"`
				} `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(line), &m) != nil || m.ID == nil {
			continue
		}
		if m.Method == "" {
			if f.askedID != nil && string(m.ID) == "1" {
				if _, err := fmt.Fprintf(f.out, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"roots answered"}]}}`+"\n", f.askedID); err != nil {
					return
				}
				f.askedID = nil
			}
			continue
		}
		if m.Method == "initialize" || m.Method == "server/discover" || m.Params.Meta.Version != "" {
			f.started = true
		}
		if f.strict && !f.started && m.Method != "ping" {
			msg, _ := json.Marshal(fmt.Sprintf("method %q is invalid during session initialization", m.Method))
			if _, err := fmt.Fprintf(f.out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32600,"message":%s}}`+"\n", m.ID, msg); err != nil {
				return
			}
			continue
		}
		if f.idAs != nil {
			m.ID = json.RawMessage(f.idAs(m.ID))
		}
		var result string
		switch m.Method {
		case "subscriptions/listen":
			continue // open until cancelled
		case "server/discover":
			if f.discover == "" {
				f.started = false
				if _, err := fmt.Fprintf(f.out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`+"\n", m.ID); err != nil {
					return
				}
				continue
			}
			result = f.discover
		case "initialize":
			caps := `{"tools":{}}`
			if f.noTools {
				caps = `{"prompts":{}}`
			}
			result = `{"protocolVersion":"2025-06-18","capabilities":` + caps + `,"serverInfo":{"name":"fake","version":"1"}}`
		case "tools/list":
			if f.added && f.holdRelist != nil && strings.HasPrefix(string(m.ID), `"agent-harness/`) {
				<-f.holdRelist
			}
			result = f.page(m.Params.Cursor)
		case "tools/call":
			if f.hang[m.Params.Name] {
				continue
			}
			if ch := f.block[m.Params.Name]; ch != nil {
				<-ch
			}
			if m.Params.Name == "stall" && f.stall != nil {
				<-f.stall
				continue
			}
			if m.Params.Name == "ask_roots" {
				f.askedID = m.ID
				if _, err := io.WriteString(f.out, `{"jsonrpc":"2.0","id":1,"method":"roots/list"}`+"\n"); err != nil {
					return
				}
				continue
			}
			if f.twice[m.Params.Name] {
				if stale, ok := f.lastLine[m.Params.Name]; ok {
					if _, err := io.WriteString(f.out, stale); err != nil {
						return
					}
					result = `{"content":[{"type":"text","text":"rejected"}],"isError":true}`
					break
				}
				if f.lastLine == nil {
					f.lastLine = map[string]string{}
				}
				f.lastLine[m.Params.Name] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"called %s"}]}}`+"\n", m.ID, m.Params.Name)
			}
			if m.Params.Name == "add_tool" {
				f.tools = append(f.tools, `{"name":"create_widget","inputSchema":{"type":"object"}}`)
				if f.relistAs != nil {
					f.tools = f.relistAs
				}
				f.added = true
				if _, err := io.WriteString(f.out, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`+"\n"); err != nil {
					return
				}
			}
			if m.Params.Name == "big" {
				result = `{"content":[{"type":"text","text":"` + strings.Repeat("b", 4<<20) + `"}]}`
				break
			}
			if f.batch[m.Params.Name] {
				if _, err := fmt.Fprintf(f.out, `[{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"called %s"}]}}]`+"\n", m.ID, m.Params.Name); err != nil {
					return
				}
				continue
			}
			if f.garbled[m.Params.Name] {
				if _, err := fmt.Fprintf(f.out, `{"jsonrpc":"2.0","id":%s,"result":{"content":`+"\n", m.ID); err != nil {
					return
				}
				continue
			}
			if f.idless[m.Params.Name] {
				if _, err := io.WriteString(f.out, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`+"\n"); err != nil {
					return
				}
				continue
			}
			result = `{"content":[{"type":"text","text":"called ` + m.Params.Name + `"}]}`
		case "tasks/get":
			// A status notification, then the task's state.
			if _, err := fmt.Fprint(f.out, `{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t-1","status":"working"}}`+"\n"); err != nil {
				return
			}
			result = `{"taskId":"t-1","status":"completed"}`
		default:
			result = `{}`
		}
		if _, err := fmt.Fprintf(f.out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", m.ID, result); err != nil {
			return
		}
	}
}

func (f *fakeUpstream) page(cursor string) string {
	start := 0
	fmt.Sscan(cursor, &start)
	end := len(f.tools)
	if f.pageSize > 0 && start+f.pageSize < end {
		end = start + f.pageSize
	}
	res := `{"tools":[` + strings.Join(f.tools[start:end], ",") + `]`
	if end < len(f.tools) {
		res += fmt.Sprintf(`,"nextCursor":"%d"`, end)
	}
	return res + "}"
}

func (f *fakeUpstream) lines() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.received...)
}

// session under test: the agent's pipes and Run's result.
type testAgent struct {
	t      *testing.T
	in     *io.PipeWriter
	out    *bufio.Reader
	done   chan error
	stderr *strings.Builder
}

// startRelay runs Run with the fake upstream; opts may be adjusted by mod.
func startRelay(t *testing.T, up *fakeUpstream, mod func(*Options)) *testAgent {
	agentIn, relayIn := io.Pipe()
	relayOut, agentOut := io.Pipe()
	a := &testAgent{t: t, in: relayIn, out: bufio.NewReader(relayOut), done: make(chan error, 1), stderr: &strings.Builder{}}
	var errMu sync.Mutex
	opts := Options{
		Upstream: IOUpstream{up.start()},
		Stdin:    agentIn,
		Stdout:   agentOut,
		Stderr:   lockedWriter{mu: &errMu, w: a.stderr},
		Classify: func(tl classify.Tool) classify.Result {
			if strings.HasPrefix(tl.Name, "create_") {
				return classify.Result{Class: classify.Write, Reason: "test write"}
			}
			return classify.Result{Class: classify.Read, Reason: "test read"}
		},
		KeyField: func(n string) bool { return n == "idempotency_key" },
	}
	if mod != nil {
		mod(&opts)
	}
	go func() {
		a.done <- Run(context.Background(), opts)
		agentOut.Close()
	}()
	return a
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (a *testAgent) send(line string) {
	a.t.Helper()
	if _, err := io.WriteString(a.in, line+"\n"); err != nil {
		a.t.Fatalf("send: %v", err)
	}
}

func (a *testAgent) recv() string {
	a.t.Helper()
	line, err := a.out.ReadString('\n')
	if err != nil {
		a.t.Fatalf("recv: %v", err)
	}
	return strings.TrimSpace(line)
}

func (a *testAgent) initialize() string {
	a.t.Helper()
	a.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	return a.recv()
}

// end closes the agent's input and returns Run's error.
func (a *testAgent) end() error {
	a.t.Helper()
	a.in.Close()
	go io.Copy(io.Discard, a.out)
	return <-a.done
}

var testTools = []string{
	`{"name":"create_booking","inputSchema":{"type":"object","properties":{"idempotency_key":{"type":"string"},"room":{}}},"x-unknown":[1]}`,
	`{"name":"get_booking","inputSchema":{"type":"object"}}`,
	`{"name":"list_rooms"}`,
}

// recordingPipeline records every call and answers as told.
type recordingPipeline struct {
	mu    sync.Mutex
	calls []ToolCall
	do    func(ctx context.Context, call *ToolCall, forward Forward) (Response, error)
}

func (p *recordingPipeline) HandleCall(ctx context.Context, call *ToolCall, forward Forward) (Response, error) {
	p.mu.Lock()
	p.calls = append(p.calls, *call)
	p.mu.Unlock()
	if p.do != nil {
		return p.do(ctx, call, forward)
	}
	return forward(ctx)
}

func TestRelayToolCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		up := &fakeUpstream{tools: testTools, pageSize: 2}
		pl := &recordingPipeline{}
		a := startRelay(t, up, func(o *Options) { o.Pipeline = pl })
		a.initialize()
		tests := []struct {
			name, req, want string
		}{
			{"forwarded unchanged, answered with the upstream's line",
				`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"create_booking","arguments":{"room":1,"idempotency_key":"k"},"_meta":{"progressToken":7}}}`,
				`{"jsonrpc":"2.0","id":"c1","result":{"content":[{"type":"text","text":"called create_booking"}]}}`},
			{"no arguments",
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_booking"}}`,
				`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"called get_booking"}]}}`},
			{"unlisted tool",
				`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_ghost","arguments":{}}}`,
				`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"called create_ghost"}]}}`},
		}
		for _, tt := range tests {
			a.send(tt.req)
			if got := a.recv(); got != tt.want {
				t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
			}
		}
		if err := a.end(); err != nil {
			t.Fatalf("Run: %v", err)
		}
		want := []ToolCall{
			{ID: 1, Tool: "create_booking", Class: classify.Write, AcceptsKey: true,
				Arguments: json.RawMessage(`{"room":1,"idempotency_key":"k"}`),
				Params:    json.RawMessage(`{"name":"create_booking","arguments":{"room":1,"idempotency_key":"k"},"_meta":{"progressToken":7}}`)},
			{ID: 2, Tool: "get_booking", Class: classify.Read,
				Params: json.RawMessage(`{"name":"get_booking"}`)},
			{ID: 3, Tool: "create_ghost", Class: classify.Unknown,
				Arguments: json.RawMessage(`{}`),
				Params:    json.RawMessage(`{"name":"create_ghost","arguments":{}}`)},
		}
		if len(pl.calls) != len(want) {
			t.Fatalf("pipeline saw %d calls, want %d", len(pl.calls), len(want))
		}
		for i, w := range want {
			g := pl.calls[i]
			if g.ID != w.ID || g.Tool != w.Tool || g.Class != w.Class || g.AcceptsKey != w.AcceptsKey ||
				string(g.Arguments) != string(w.Arguments) || string(g.Params) != string(w.Params) {
				t.Errorf("call %d = %+v\nwant %+v", i, g, w)
			}
		}
		// The upstream got the agent's request bytes unchanged but for an
		// id of the proxy's own (the initialize had 1).
		found := false
		for _, l := range up.lines() {
			if l == strings.Replace(tests[0].req, `"id":"c1"`, `"id":2`, 1) {
				found = true
			}
		}
		if !found {
			t.Errorf("upstream did not receive the request unchanged; got %q", up.lines())
		}
	})
}

// TestRelayToolCallOutputSchemaAndVersion: behaviour §3.3 — the pipeline
// learns per call whether the tool declared an outputSchema and which
// protocol version the call speaks (its SEP-2575 _meta version, else the
// version of the session's initialize result).
func TestRelayToolCallOutputSchemaAndVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		up := &fakeUpstream{tools: []string{
			`{"name":"create_entities","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}}`,
			`{"name":"create_null","inputSchema":{"type":"object"},"outputSchema":null}`,
			`{"name":"create_plain","inputSchema":{"type":"object"}}`,
		}}
		pl := &recordingPipeline{}
		a := startRelay(t, up, func(o *Options) { o.Pipeline = pl })
		a.initialize()
		for i, req := range []string{
			`{"name":"create_entities","arguments":{}}`,
			`{"name":"create_null","arguments":{}}`,
			`{"name":"create_plain","arguments":{}}`,
			`{"name":"create_entities","arguments":{},"_meta":{` + statelessMeta + `}}`,
		} {
			a.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, 10+i, req))
			a.recv()
		}
		if err := a.end(); err != nil {
			t.Fatalf("Run: %v", err)
		}
		want := []struct {
			schema  bool
			version string
		}{{true, "2025-06-18"}, {false, "2025-06-18"}, {false, "2025-06-18"}, {true, "2026-07-28"}}
		if len(pl.calls) != len(want) {
			t.Fatalf("pipeline saw %d calls", len(pl.calls))
		}
		for i, w := range want {
			if g := pl.calls[i]; g.OutputSchema != w.schema || g.ProtocolVersion != w.version {
				t.Errorf("call %d (%s): outputSchema %v version %q, want %v %q", i, g.Tool, g.OutputSchema, g.ProtocolVersion, w.schema, w.version)
			}
		}
	})
}

func TestRelayPipelineAnswers(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name string
		do   func(ctx context.Context, call *ToolCall, forward Forward) (Response, error)
		want string
	}{
		{"answer without forwarding",
			func(context.Context, *ToolCall, Forward) (Response, error) {
				return Response{Result: json.RawMessage(`{"content":[],"isError":true}`)}, nil
			},
			`{"jsonrpc":"2.0","id":5,"result":{"content":[],"isError":true}}`},
		{"forward then replace",
			func(ctx context.Context, _ *ToolCall, fwd Forward) (Response, error) {
				if _, err := fwd(ctx); err != nil {
					return Response{}, err
				}
				return Response{Result: json.RawMessage(`{"content":[{"type":"text","text":"replaced"}]}`)}, nil
			},
			`{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"replaced"}]}}`},
		{"JSON-RPC error",
			func(context.Context, *ToolCall, Forward) (Response, error) {
				return Response{Error: &RPCError{Code: -32602, Message: "bad", Data: json.RawMessage(`{"x":1}`)}}, nil
			},
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"bad","data":{"x":1}}}`},
		{"pipeline error",
			func(context.Context, *ToolCall, Forward) (Response, error) { return Response{}, errBoom },
			`{"jsonrpc":"2.0","id":5,"result":{"content":[{"text":"Error: agent-harness could not handle this call: boom","type":"text"}],"isError":true}}`},
		{"pipeline panic",
			func(context.Context, *ToolCall, Forward) (Response, error) { panic("oops") },
			`{"jsonrpc":"2.0","id":5,"result":{"content":[{"text":"Error: agent-harness could not handle this call: internal error in the call pipeline: oops","type":"text"}],"isError":true}}`},
		{"invalid result",
			func(context.Context, *ToolCall, Forward) (Response, error) {
				return Response{Result: json.RawMessage(`{"content":`)}, nil
			},
			`{"jsonrpc":"2.0","id":5,"result":{"content":[{"text":"Error: agent-harness could not handle this call: the call pipeline returned no valid result","type":"text"}],"isError":true}}`},
		{"forward twice",
			func(ctx context.Context, _ *ToolCall, fwd Forward) (Response, error) {
				fwd(ctx)
				return fwd(ctx)
			},
			`{"jsonrpc":"2.0","id":5,"result":{"content":[{"text":"Error: agent-harness could not handle this call: forward called twice for one call","type":"text"}],"isError":true}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := startRelay(t, &fakeUpstream{tools: testTools}, func(o *Options) {
					o.Pipeline = &recordingPipeline{do: tt.do}
				})
				a.initialize()
				a.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"create_booking","arguments":{}}}`)
				if got := a.recv(); got != tt.want {
					t.Errorf("got  %s\nwant %s", got, tt.want)
				}
				a.end()
			})
		})
	}
}

func TestRelayCallTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		up := &fakeUpstream{tools: testTools, hang: map[string]bool{"create_booking": true}}
		var gotErr error
		a := startRelay(t, up, func(o *Options) {
			o.Pipeline = &recordingPipeline{do: func(ctx context.Context, _ *ToolCall, fwd Forward) (Response, error) {
				r, err := fwd(ctx)
				gotErr = err
				return r, err
			}}
		})
		a.initialize()
		a.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"create_booking","arguments":{}}}`)
		want := `{"jsonrpc":"2.0","id":5,"result":{"content":[{"text":"Error: the upstream MCP server did not answer within 60000 ms (agent-harness call timeout). The outcome is unknown.","type":"text"}],"isError":true}}`
		if got := a.recv(); got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
		if !errors.Is(gotErr, ErrNoAnswer) {
			t.Errorf("forward error %v, want ErrNoAnswer", gotErr)
		}
		a.end()
		last := up.lines()[len(up.lines())-1]
		// The cancellation names the request by the id the upstream got
		// (the initialize had 1).
		if !strings.Contains(last, `"method":"notifications/cancelled"`) || !strings.Contains(last, `"requestId":2}`) {
			t.Errorf("no cancellation sent upstream; last line %s", last)
		}
	})
}

func TestRelayCancelledCallGetsNoProxyAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		up := &fakeUpstream{tools: testTools, hang: map[string]bool{"create_booking": true}}
		a := startRelay(t, up, nil)
		a.initialize()
		a.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"create_booking","arguments":{}}}`)
		a.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`)
		a.send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"get_booking","arguments":{}}}`)
		if got := a.recv(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":6,`) {
			t.Fatalf("got %s", got)
		}
		synctest.Wait() // the timed-out call 5 is settled without an answer
		a.in.Close()
		rest, _ := io.ReadAll(a.out)
		if strings.Contains(string(rest), `"id":5`) {
			t.Errorf("the proxy answered a cancelled call: %s", rest)
		}
		<-a.done
	})
}

func TestRelayExtraTools(t *testing.T) {
	extra := []json.RawMessage{json.RawMessage(`{"name":"cuonztech__get_report","inputSchema":{"type":"object"}}`)}
	tests := []struct {
		name     string
		up       *fakeUpstream
		wantInit string
		pages    []string // expected tools/list pages, following nextCursor
	}{
		{"appended to the last page only",
			&fakeUpstream{tools: testTools, pageSize: 2},
			`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}`,
			[]string{
				`{"jsonrpc":"2.0","id":1,"result":{"tools":[` + testTools[0] + `,` + testTools[1] + `],"nextCursor":"2"}}`,
				`{"jsonrpc":"2.0","id":2,"result":{"tools":[` + testTools[2] + `,` + string(extra[0]) + `]}}`,
			}},
		{"empty upstream list",
			&fakeUpstream{},
			`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}`,
			[]string{`{"jsonrpc":"2.0","id":1,"result":{"tools":[` + string(extra[0]) + `]}}`}},
		{"upstream without tools capability",
			&fakeUpstream{noTools: true},
			`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"prompts":{}},"serverInfo":{"name":"fake","version":"1"}}}`,
			[]string{`{"jsonrpc":"2.0","id":1,"result":{"tools":[` + string(extra[0]) + `]}}`}},
		{"an upstream tool of the same name wins",
			&fakeUpstream{tools: []string{`{"name":"cuonztech__get_report","x":1}`}},
			`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}`,
			[]string{`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"cuonztech__get_report","x":1}]}}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var local []string
				a := startRelay(t, tt.up, func(o *Options) {
					o.ExtraTools = extra
					o.LocalTool = func(_ context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
						local = append(local, name+" "+string(args))
						return json.RawMessage(`{"content":[{"type":"text","text":"local"}]}`), nil
					}
				})
				if got := a.initialize(); got != tt.wantInit {
					t.Errorf("initialize:\n got %s\nwant %s", got, tt.wantInit)
				}
				cursor := ""
				for i, want := range tt.pages {
					params := `{}`
					if cursor != "" {
						params = `{"cursor":"` + cursor + `"}`
					}
					a.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":%s}`, i+1, params))
					got := a.recv()
					if got != want {
						t.Errorf("page %d:\n got %s\nwant %s", i, got, want)
					}
					var r struct {
						Result struct{ NextCursor string } `json:"result"`
					}
					json.Unmarshal([]byte(got), &r)
					cursor = r.Result.NextCursor
				}
				a.send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"cuonztech__get_report","arguments":{"format":"json"}}}`)
				got := a.recv()
				a.end()
				shadowed := strings.Contains(tt.name, "same name")
				if shadowed {
					if len(local) != 0 || !strings.Contains(got, "called cuonztech__get_report") {
						t.Errorf("shadowed extra tool answered locally: %s %v", got, local)
					}
					return
				}
				if got != `{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"local"}]}}` || len(local) != 1 || local[0] != `cuonztech__get_report {"format":"json"}` {
					t.Errorf("local tool: got %s, calls %q", got, local)
				}
				for _, l := range tt.up.lines() {
					if strings.Contains(l, `"id":9`) {
						t.Errorf("a call to an extra tool reached the upstream: %s", l)
					}
				}
			})
		})
	}
}

func TestRelayAgentInput(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"invalid JSON", `{"jsonrpc":`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: invalid JSON at byte 12: unexpected end of input, expected a value"}}`},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"agent-harness: a message must be one JSON-RPC object (batches are not supported)"}}`},
		{"too deep", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"create_booking","arguments":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"agent-harness: the message is nested 10002 levels deep (more than 10000); it was not forwarded"}}`},
		{"duplicate open id", `{"jsonrpc":"2.0","id":"h","method":"tools/call","params":{"name":"create_booking"}}`,
			`{"jsonrpc":"2.0","id":"h","error":{"code":-32600,"message":"agent-harness: duplicate request id (an earlier request with this id is still open)"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				up := &fakeUpstream{tools: testTools, hang: map[string]bool{"create_booking": true}}
				a := startRelay(t, up, nil)
				a.initialize()
				// An open call with id "h", for the duplicate case.
				a.send(`{"jsonrpc":"2.0","id":"h","method":"tools/call","params":{"name":"create_booking"}}`)
				synctest.Wait()
				a.send(tt.in)
				if got := a.recv(); got != tt.want {
					t.Errorf("got  %s\nwant %s", got, tt.want)
				}
				a.end()
			})
		})
	}
}

func TestRelayStartupListing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var got [][]ToolInfo
		up := &fakeUpstream{tools: testTools, pageSize: 1}
		a := startRelay(t, up, func(o *Options) {
			o.KeyFieldNames = []string{"idempotency_key"}
			o.OnTools = func(ts []ToolInfo) { got = append(got, ts) }
		})
		a.initialize()
		a.end()
		if len(got) != 1 || len(got[0]) != 3 {
			t.Fatalf("OnTools got %v", got)
		}
		if e := got[0][0]; e.Name != "create_booking" || e.Class != classify.Write || len(e.KeyFields) != 1 {
			t.Errorf("entry 0 = %+v", e)
		}
		stderr := a.stderr.String()
		for _, w := range []string{
			"[agent-harness] Upstream tools (3):\n",
			"[agent-harness]   write        create_booking  (test write)\n",
			"[agent-harness]   read         list_rooms  (test read)\n",
			"[agent-harness] Key field recognised: create_booking (idempotency_key)\n",
		} {
			if !strings.Contains(stderr, w) {
				t.Errorf("stderr lacks %q:\n%s", w, stderr)
			}
		}
		// The proxy's own requests used string ids the agent's cannot be.
		n := 0
		for _, l := range up.lines() {
			if strings.Contains(l, `"id":"agent-harness/`) {
				n++
			}
		}
		if n != 3 {
			t.Errorf("%d own tools/list requests, want 3 pages: %q", n, up.lines())
		}
	})
}

// TestRelayUpstreamErrorWithoutID: an error the upstream sends without a
// usable id (its own parse error) is logged and forwarded to the agent; the
// open call is not guessed at and keeps waiting, up to the call timeout.
func TestRelayUpstreamErrorWithoutID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		up := &fakeUpstream{tools: testTools, idless: map[string]bool{"create_booking": true}}
		var fwdErr error
		a := startRelay(t, up, func(o *Options) {
			o.Pipeline = &recordingPipeline{do: func(ctx context.Context, _ *ToolCall, fwd Forward) (Response, error) {
				r, err := fwd(ctx)
				fwdErr = err
				return r, err
			}}
		})
		a.initialize()
		a.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"create_booking","arguments":{}}}`)
		for i, want := range []string{
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
			`{"jsonrpc":"2.0","id":5,"result":{"content":[{"text":"Error: the upstream MCP server did not answer within 60000 ms (agent-harness call timeout). The outcome is unknown.","type":"text"}],"isError":true}}`,
		} {
			if got := a.recv(); got != want {
				t.Errorf("message %d:\n got %s\nwant %s", i, got, want)
			}
		}
		a.end()
		if !errors.Is(fwdErr, ErrNoAnswer) {
			t.Errorf("forward error %v, want ErrNoAnswer", fwdErr)
		}
		if want := "[agent-harness] upstream sent an error without a request id: Parse error\n"; !strings.Contains(a.stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, a.stderr.String())
		}
	})
}

func TestUsableID(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{`1`, true}, {`-3`, true}, {`"a"`, true}, {`""`, true},
		{``, false}, {`null`, false}, {`{}`, false}, {`[1]`, false}, {`true`, false},
	}
	for _, tt := range tests {
		if got := usableID([]byte(tt.id)); got != tt.want {
			t.Errorf("usableID(%s) = %v, want %v", tt.id, got, tt.want)
		}
	}
}
