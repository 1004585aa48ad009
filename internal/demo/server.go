package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/pipeline"
	"github.com/cuonztech/agent-harness/internal/relay"
	"github.com/cuonztech/agent-harness/internal/report"
	"github.com/cuonztech/agent-harness/internal/reportfile"
)

// DefaultMaxSessions is how many sessions the demo keeps; starting one
// more drops the oldest (behaviour §11).
const DefaultMaxSessions = 500

// AuditReportPath is where get_report writes the session's report file,
// relative to Options.Dir.
var AuditReportPath = filepath.Join(".cuonztech", "audit-report.json")

// Options configures a Server. The zero value is ready to use.
type Options struct {
	// Dir is the directory get_report writes .cuonztech/audit-report.json
	// into; "" is the current directory.
	Dir string
	// MaxSessions bounds the sessions kept; zero is DefaultMaxSessions.
	MaxSessions int
	// Clock is the pipeline's time source; nil is the system clock.
	Clock pipeline.Clock
}

// Server holds the demo sessions and serves the seven demo tools.
type Server struct {
	opts       Options
	classifier *classify.Chain

	mu       sync.Mutex
	sessions map[string]*session
	order    []string // session ids, oldest first
	started  int64    // sessions started so far, for ids

	reportMu sync.Mutex // serialises audit-report.json writes
}

// New returns a demo server.
func New(opts Options) *Server {
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	return &Server{
		opts:       opts,
		classifier: classify.NewChain(classify.ChainOptions{}),
		sessions:   map[string]*session{},
	}
}

// MCPServer returns a go-sdk MCP server with the seven demo tools.
func (s *Server) MCPServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "agent-harness-demo", Version: report.HarnessVersion},
		&mcp.ServerOptions{Instructions: instructions})
	for _, t := range s.tools() {
		srv.AddTool(t.def, t.handler)
	}
	return srv
}

const instructions = "agent-harness demo: a demo, not a measurement. There is no real backend: " +
	"reads answer a generic ok, writes are simulated, and the harness sees only what you send through " +
	"execute_call. Start a session with a scenario (list_scenarios), send calls with execute_call, " +
	"then read get_report or get_score. To measure a real agent use `agent-harness proxy`."

type tool struct {
	def     *mcp.Tool
	handler mcp.ToolHandler
}

func (s *Server) tools() []tool {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	return []tool{
		{&mcp.Tool{Name: "start_session", InputSchema: schemaStartSession,
			Description: "Start a demo session with a fault scenario (" + fault.ScenarioRange() + ", or none). Returns the session id. " +
				"At most 500 sessions are kept; starting another drops the oldest."},
			s.handle(s.startSession)},
		{&mcp.Tool{Name: "execute_call", InputSchema: schemaExecuteCall,
			Description: "Send one simulated tool call through the harness in a session. Writes are faulted per the " +
				"session's scenario and judged; reads answer a generic ok. An injected fault is returned as this tool's result (isError)."},
			s.handle(s.executeCall)},
		{&mcp.Tool{Name: "get_report", InputSchema: schemaGetReport, Annotations: readOnly,
			Description: "The session's report (verdict, operations, violations, observations) as markdown or json. " +
				"Also writes .cuonztech/audit-report.json in the server's working directory."},
			s.handle(s.getReport)},
		{&mcp.Tool{Name: "get_score", InputSchema: schemaSessionOnly, Annotations: readOnly,
			Description: "The session's resilience score, verdict and prompt patches as json."},
			s.handle(s.getScore)},
		{&mcp.Tool{Name: "list_scenarios", InputSchema: schemaEmpty, Annotations: readOnly,
			Description: "The fault scenarios a session can use."},
			s.handle(s.listScenarios)},
		{&mcp.Tool{Name: "reset_session", InputSchema: schemaSessionOnly,
			Description: "Clear a session's history, violations included, and re-arm its scenario."},
			s.handle(s.resetSession)},
		{&mcp.Tool{Name: "delete_session", InputSchema: schemaSessionOnly,
			Description: "Delete a session."},
			s.handle(s.deleteSession)},
	}
}

// errUser is an error shown to the caller as a tool error.
type errUser struct{ msg string }

func (e errUser) Error() string { return e.msg }

func userErrorf(format string, args ...any) error { return errUser{fmt.Sprintf(format, args...)} }

// handle adapts a handler taking the raw arguments and returning a tool
// result; a user error becomes a tool result with isError.
func (s *Server) handle(h func(ctx context.Context, args json.RawMessage) (*mcp.CallToolResult, error)) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := req.Params.Arguments
		if len(args) == 0 || string(args) == "null" {
			args = json.RawMessage(`{}`)
		}
		res, err := h(ctx, args)
		var ue errUser
		if errors.As(err, &ue) {
			return textResult(ue.msg, true), nil
		}
		return res, err
	}
}

func textResult(text string, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isError}
}

func jsonResult(v any) (*mcp.CallToolResult, error) {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding result: %w", err)
	}
	return textResult(string(raw), false), nil
}

// decode unmarshals args into v, rejecting unknown fields.
func decode(args json.RawMessage, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(args)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return userErrorf("invalid arguments: %v", err)
	}
	return nil
}

func (s *Server) startSession(_ context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
	var in struct {
		Scenario   *string `json:"scenario"`
		RetryAfter *int64  `json:"retry_after_seconds"`
	}
	if err := decode(args, &in); err != nil {
		return nil, err
	}
	scenario := ""
	if in.Scenario != nil {
		switch v := strings.ToUpper(strings.TrimSpace(*in.Scenario)); {
		case fault.IsScenario(v):
			scenario = v
		case v == "" || v == "NONE":
		default:
			return nil, userErrorf("unknown scenario %q: use %s or none (see list_scenarios)", *in.Scenario, strings.Join(fault.Scenarios(), ", "))
		}
	}
	var retryAfter time.Duration
	if in.RetryAfter != nil {
		if scenario != "F2" {
			return nil, userErrorf("retry_after_seconds applies to scenario F2 only")
		}
		if *in.RetryAfter < 1 || *in.RetryAfter > 86400 {
			return nil, userErrorf("retry_after_seconds must be from 1 to 86400")
		}
		retryAfter = time.Duration(*in.RetryAfter) * time.Second
	}
	s.mu.Lock()
	s.started++
	id := "session-" + strconv.FormatInt(s.started, 10)
	s.mu.Unlock()
	sess, err := newSession(id, scenario, retryAfter, s.opts.Clock)
	if err != nil {
		return nil, err
	}
	dropped := s.add(sess)
	out := map[string]any{"session_id": id, "scenario": scenarioOrNone(scenario)}
	if dropped != "" {
		out["dropped_session_id"] = dropped
	}
	return jsonResult(out)
}

func scenarioOrNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// add stores sess, dropping the oldest session when the limit is reached;
// it returns the dropped session's id, or "".
func (s *Server) add(sess *session) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	dropped := ""
	if len(s.order) >= s.opts.MaxSessions {
		dropped = s.order[0]
		delete(s.sessions, dropped)
		s.order = s.order[1:]
	}
	s.sessions[sess.id] = sess
	s.order = append(s.order, sess.id)
	return dropped
}

// sessionArg decodes arguments that hold only a session_id and looks the
// session up.
func (s *Server) sessionArg(args json.RawMessage) (*session, error) {
	var in struct {
		SessionID string `json:"session_id"`
	}
	if err := decode(args, &in); err != nil {
		return nil, err
	}
	return s.lookup(in.SessionID)
}

func (s *Server) lookup(id string) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.sessions[id]
	if !ok {
		return nil, userErrorf("unknown session %q: it was never started, was deleted, or was dropped "+
			"(at most %d sessions are kept)", id, s.opts.MaxSessions)
	}
	return sess, nil
}

func (s *Server) executeCall(ctx context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
	var in struct {
		SessionID      string          `json:"session_id"`
		Tool           string          `json:"tool"`
		Class          *string         `json:"class"`
		Arguments      json.RawMessage `json:"arguments"`
		IdempotencyKey *string         `json:"idempotency_key"`
	}
	if err := decode(args, &in); err != nil {
		return nil, err
	}
	sess, err := s.lookup(in.SessionID)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Tool) == "" {
		return nil, userErrorf("tool is required")
	}
	r, err := s.classOf(in.Tool, in.Class)
	if err != nil {
		return nil, err
	}
	callArgs, err := callArguments(in.Arguments, in.IdempotencyKey)
	if err != nil {
		return nil, err
	}
	id, pipe := sess.nextCall(in.Tool, r)
	call := &relay.ToolCall{
		ID: id, Tool: in.Tool, Class: r.Class, AcceptsKey: r.Class == classify.Write,
		Arguments: callArgs,
	}
	call.Params, _ = json.Marshal(map[string]any{"name": in.Tool, "arguments": callArgs})
	resp, err := pipe.HandleCall(ctx, call, simulatedUpstream(in.Tool, r.Class))
	if err != nil {
		return textResult("Error: "+err.Error(), true), nil
	}
	if resp.Error != nil {
		return textResult(fmt.Sprintf("Error: JSON-RPC error %d: %s", resp.Error.Code, resp.Error.Message), true), nil
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(resp.Result, &res); err != nil {
		return nil, fmt.Errorf("decoding the pipeline's answer: %w", err)
	}
	// Keep structuredContent byte for byte (the F2 answer's field order).
	var raw struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if json.Unmarshal(resp.Result, &raw) == nil && len(raw.StructuredContent) > 0 {
		res.StructuredContent = raw.StructuredContent
	}
	return &res, nil
}

// classOf returns the class given by the caller, or classifies the tool by
// its name with the proxy's default chain (annotations cannot apply: the
// demo's tools have none).
func (s *Server) classOf(tool string, class *string) (classify.Result, error) {
	if class == nil {
		return s.classifier.Classify(classify.Tool{Name: tool}), nil
	}
	switch c := classify.Class(strings.ToLower(strings.TrimSpace(*class))); c {
	case classify.Read, classify.Write, classify.Unclassified:
		return classify.Result{Class: c, Reason: "class given to execute_call"}, nil
	}
	return classify.Result{}, userErrorf("unknown class %q: use read, write or unclassified", *class)
}

// callArguments returns the call's arguments object with the idempotency
// key added as idempotency_key.
func callArguments(raw json.RawMessage, key *string) (json.RawMessage, error) {
	args := map[string]json.RawMessage{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, userErrorf("arguments must be a JSON object")
		}
	}
	if key == nil {
		if len(raw) > 0 && string(raw) != "null" {
			return raw, nil // unchanged, numbers and order as sent
		}
		return json.RawMessage(`{}`), nil
	}
	k, _ := json.Marshal(*key)
	args[canon.DefaultKeyField] = k
	out, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("encoding arguments: %w", err)
	}
	return out, nil
}

// simulatedUpstream answers a forwarded call like a backend that accepts
// everything: a generic ok, which for a write means it executed.
func simulatedUpstream(tool string, class classify.Class) relay.Forward {
	return func(context.Context) (relay.Response, error) {
		body := map[string]any{"status": "ok", "tool": tool}
		if class == classify.Write {
			body["executed"] = true
		}
		text, _ := json.Marshal(body)
		res, _ := json.Marshal(map[string]any{"content": []map[string]string{{"type": "text", "text": string(text)}}})
		return relay.Response{Result: res}, nil
	}
}

func (s *Server) getReport(_ context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
	var in struct {
		SessionID string  `json:"session_id"`
		Format    *string `json:"format"`
	}
	if err := decode(args, &in); err != nil {
		return nil, err
	}
	format := "markdown"
	if in.Format != nil {
		format = strings.ToLower(strings.TrimSpace(*in.Format))
		if format != "markdown" && format != "json" {
			return nil, userErrorf("unknown format %q: use markdown or json", *in.Format)
		}
	}
	sess, err := s.lookup(in.SessionID)
	if err != nil {
		return nil, err
	}
	pipe, j := sess.current()
	data := pipe.ReportJSON()
	path, werr := s.writeAuditReport(data)
	note := "Report also written to " + path + "."
	if werr != nil {
		note = "Could not write " + path + ": " + werr.Error()
	}
	if format == "json" {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: string(data)},
			&mcp.TextContent{Text: note},
		}}, nil
	}
	return textResult(j.Markdown()+"\n\n"+note+"\n", false), nil
}

// writeAuditReport writes data to .cuonztech/audit-report.json below
// Options.Dir, replacing the file atomically.
func (s *Server) writeAuditReport(data []byte) (string, error) {
	path := filepath.Join(s.opts.Dir, AuditReportPath)
	s.reportMu.Lock()
	defer s.reportMu.Unlock()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return path, fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	w, err := reportfile.New(path, reportfile.Options{})
	if err != nil {
		return path, err
	}
	return path, w.Write(data)
}

func (s *Server) getScore(_ context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
	sess, err := s.sessionArg(args)
	if err != nil {
		return nil, err
	}
	_, j := sess.current()
	verdict, reason := j.Verdict()
	patches := j.Patches()
	if patches == nil {
		patches = []report.Patch{}
	}
	return jsonResult(map[string]any{
		"session_id":    sess.id,
		"scenario":      scenarioOrNone(sess.scenario),
		"certification": report.Certification,
		"verdict":       verdict,
		"verdictReason": reason,
		"score":         j.Score(),
		"patches":       patches,
	})
}

// scenarioInfo is one entry of list_scenarios.
type scenarioInfo struct {
	ID          string `json:"id"`
	FiresOn     string `json:"firesOn"`
	WhatHappens string `json:"whatHappens"`
	FailIf      string `json:"failIf"`
}

// scenarioList is list_scenarios's "scenarios": the built-in --scenario
// faults as they describe themselves (fault.Builtin.Brief).
var scenarioList = func() []scenarioInfo {
	var list []scenarioInfo
	for _, b := range fault.Builtins() {
		if !b.Mode {
			list = append(list, scenarioInfo{b.Name, b.Brief.FiresOn, b.Brief.WhatHappens, b.Brief.FailIf})
		}
	}
	return list
}()

func (s *Server) listScenarios(_ context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
	if err := decode(args, &struct{}{}); err != nil {
		return nil, err
	}
	return jsonResult(map[string]any{"scenarios": scenarioList,
		"note": "a session without a scenario gives a baseline only; F1 and F4 really execute the write"})
}

func (s *Server) resetSession(_ context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
	sess, err := s.sessionArg(args)
	if err != nil {
		return nil, err
	}
	if err := sess.reset(s.opts.Clock); err != nil {
		return nil, err
	}
	return jsonResult(map[string]any{"session_id": sess.id, "scenario": scenarioOrNone(sess.scenario),
		"reset": true})
}

func (s *Server) deleteSession(_ context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
	var in struct {
		SessionID string `json:"session_id"`
	}
	if err := decode(args, &in); err != nil {
		return nil, err
	}
	s.mu.Lock()
	_, ok := s.sessions[in.SessionID]
	if ok {
		delete(s.sessions, in.SessionID)
		for i, id := range s.order {
			if id == in.SessionID {
				s.order = append(s.order[:i], s.order[i+1:]...)
				break
			}
		}
	}
	s.mu.Unlock()
	if !ok {
		return nil, userErrorf("unknown session %q", in.SessionID)
	}
	return jsonResult(map[string]any{"session_id": in.SessionID, "deleted": true})
}
