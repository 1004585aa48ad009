package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/wire"
)

// A line's derived fields are not trusted where the trace holds their
// source (behaviour §7.2): a call's class, acceptsKey and idempotent come
// from its tool's listing, a listing's classification and writes from the
// tool definitions and the header's settings, an answer's outcome from
// whether its call was forwarded. crossLines refuses a line that disagrees
// with the lines it derives from, as each of these edits turned a recorded
// FAIL into a PASS (red team 2, finding 6).

// Rules of the writer between lines, as the error messages name them.
const (
	ruleListing     = "a listing's classification is the one its definitions and the header's settings give"
	ruleWrites      = "a listing's writes are the tools it classifies write"
	ruleCallTool    = "a call's tool is the name its params give"
	ruleCallClass   = "a call's class, acceptsKey and idempotent are its tool's in a listing"
	ruleForwarded   = "a forwarded call is never injected-not-executed, and a fault on it means it executed"
	ruleIncomplete  = "an incomplete answer is for a forwarded call, carries no fault, and has the result that asked for input"
	ruleUnknownTool = "an unknown-tool answer is for a call of class unknown, or of a tool a listing since the call lacks"
	ruleNotExecuted = "an upstream-not-executed answer has the proxy's own isError result for an HTTP status"
	ruleStdio       = "no upstream-not-executed over a stdio upstream"
	ruleRetryAfter  = "an injected 429 carries the header's retry_after"
	ruleTime        = "a call's lines are in time order: call, forwarded, answer, delivered"
	ruleResult      = "an executed answer's result is no isError result, an upstream-rejected one's is"
	ruleTransport   = "a transport-level delivery only of an injected fault, over an HTTP agent side"
	ruleRequestSeq  = "a session's request numbers are distinct"
	ruleHandedOff   = "the answer after a handoff is executed with the fault handed over and no retry_after, or not executed without a fault"
)

// callFields are what a call line derives from its tool's listing.
type callFields struct {
	class      classify.Class
	acceptsKey bool
	idempotent bool
}

var notListed = callFields{class: classify.Unknown}

func fieldsOf(e classify.Entry) callFields {
	return callFields{class: e.Class, acceptsKey: len(e.KeyFields) > 0, idempotent: e.Idempotent}
}

// pendingCall is a call line whose fields match no listing before it: the
// relay may have classified it with a listing whose line follows it (the
// list is installed before its line is written), so a later listing may
// explain it; one none explains is refused at the end.
type pendingCall struct {
	line   int
	call   int64
	tool   string
	fields callFields
}

// crossLines follows a trace line by line and refuses a line that
// contradicts an earlier one (a pending call: every listing after it).
type crossLines struct {
	header *Header
	// classify re-derives a listing's entries; nil when the header records
	// plugins (a classifier plugin's answer is not re-derived here; the
	// recorded classification is checked for consistency only).
	classify func(classify.Tool) classify.Result
	keyField func(string) bool
	// history is the recorded listings' (classify.History): a re-listing
	// may be stricter than the definitions say.
	history classify.History
	// allowed are, per tool, the fields a call of it may carry: those of
	// every listing so far, notListed when a listing lacked it.
	allowed  map[string][]callFields
	listings int
	pending  []pendingCall
	// per call: forwarded, and the t of its latest line.
	forwarded map[int64]bool
	lastT     map[int64]Millis
	// faulted: the call's answer carried an injected fault kind;
	// requestSeqs: the request numbers seen per session
	// (duplicate.resentBy reads both).
	faulted     map[int64]bool
	requestSeqs map[Session]map[int64]bool
	// handedOff: the fault a delivered line handed over before the
	// call's answer (a handoff).
	handedOff map[int64]string
	// per call: its tool and class; delisted: a listing after its call
	// line lacked its tool (a follow-up of it may then be unknown-tool).
	callTool  map[int64]string
	callClass map[int64]classify.Class
	delisted  map[int64]bool
}

func newCrossLines(h *Header) *crossLines {
	c := &crossLines{header: h, allowed: map[string][]callFields{}, forwarded: map[int64]bool{}, lastT: map[int64]Millis{},
		faulted: map[int64]bool{}, requestSeqs: map[Session]map[int64]bool{}, handedOff: map[int64]string{},
		callTool: map[int64]string{}, callClass: map[int64]classify.Class{}, delisted: map[int64]bool{}}
	s := h.Settings
	// Version 1 traces were classified by older rules; a classifier
	// plugin's answers are not re-derived here.
	if len(s.Plugins) == 0 && h.Version == Version {
		c.classify = classify.NewChain(classify.ChainOptions{
			WriteTools: s.WriteTools, ReadTools: s.ReadTools,
			IdempotentTools: s.IdempotentTools, IgnoreIdempotentHint: s.IgnoreIdempotentHint,
		}).Classify
		c.keyField = canon.ParseKeyFields(s.KeyFields).Match
	}
	return c
}

// lineError is a broken rule at line n.
func lineError(n int, rule, format string, args ...any) error {
	return fmt.Errorf("line %d: %w", n, ruleError(rule, format, args...))
}

// check checks line n; its error names the line it is about (a pending
// call's own line).
func (c *crossLines) check(n int, l *Line) error {
	switch l.Type {
	case "tools":
		return c.listing(n, l.Tools, l.Writes, true)
	case "call":
		return c.call(n, l)
	case "forwarded", "answer", "delivered":
		if t, ok := c.lastT[l.Call]; ok && l.T < t {
			return lineError(n, ruleTime, "the %s line of call %d is earlier (t %s ms) than a line of that call before it (t %s ms)",
				l.Type, l.Call, millisText(l.T), millisText(t))
		}
		c.lastT[l.Call] = l.T
		switch l.Type {
		case "forwarded":
			c.forwarded[l.Call] = true
		case "answer":
			return c.answer(n, l)
		case "delivered":
			return c.delivered(n, l)
		}
	}
	return nil
}

// resultTypeText is a result's raw resultType for a message, "absent" when
// there is none.
func resultTypeText(v []byte) string {
	if v == nil {
		return "absent"
	}
	if len(v) > 40 {
		return string(v[:40]) + "…"
	}
	return string(v)
}

func millisText(m Millis) string { return string(appendMillis(nil, time.Duration(m))) }

// end checks what is left at the end of the trace: a pending call no
// listing followed.
func (c *crossLines) end() error {
	if len(c.pending) > 0 {
		p := c.pending[0]
		return lineError(p.line, ruleCallClass, "call %d of tool %q is recorded as class %s, acceptsKey %t, idempotent %t, which no listing of the trace gives it",
			p.call, p.tool, p.fields.class, p.fields.acceptsKey, p.fields.idempotent)
	}
	return nil
}

// listing checks a listing (a tools line, or the header's tools when
// withWrites is false) and makes it the current one.
func (c *crossLines) listing(n int, tools []Tool, writes []string, withWrites bool) error {
	entries := make([]classify.Entry, len(tools))
	var want []string
	for i, t := range tools {
		e := t.Entry
		entries[i] = e
		if e.Class == classify.Write {
			want = append(want, e.Name)
		}
		if c.classify == nil || len(t.Definition) == 0 {
			continue
		}
		d, ok := classify.EntryOf(t.Definition, c.classify, c.keyField)
		if !ok || d.Name != e.Name {
			return lineError(n, ruleListing, "tool %d of the listing is named %q, its definition does not name it so", i+1, e.Name)
		}
		if !sameDerived(d, e) && !sameDerived(c.history.Stricter(d), e) {
			return lineError(n, ruleListing, "tool %q is recorded as class %s (keyFields %q, idempotent %t), its definition gives class %s (keyFields %q, idempotent %t)",
				e.Name, e.Class, e.KeyFields, e.Idempotent, d.Class, d.KeyFields, d.Idempotent)
		}
	}
	if withWrites && !sameSet(writes, want) {
		return lineError(n, ruleWrites, "the listing's writes are %q, its tools classified write are %q", writes, want)
	}
	c.history.Record(entries)
	m := merged(entries)
	now := make(map[string]callFields, len(m))
	for _, e := range m {
		now[e.Name] = fieldsOf(e)
	}
	// A pending call this listing explains is settled; with several
	// sessions the listing of its own catalog may come later still.
	c.pending = slices.DeleteFunc(c.pending, func(p pendingCall) bool {
		f, ok := now[p.tool]
		if !ok {
			f = notListed
		}
		return f == p.fields
	})
	for call, tool := range c.callTool {
		if _, ok := now[tool]; !ok {
			c.delisted[call] = true
		}
	}
	for name, fs := range c.allowed {
		if _, ok := now[name]; !ok && !slices.Contains(fs, notListed) {
			c.allowed[name] = append(fs, notListed)
		}
	}
	for name, f := range now {
		fs, seen := c.allowed[name]
		if !seen && c.listings > 0 {
			fs = []callFields{notListed} // not in the listings before
		}
		if !slices.Contains(fs, f) {
			fs = append(fs, f)
		}
		c.allowed[name] = fs
	}
	c.listings++
	return nil
}

// sameSet reports whether a and b hold the same names (the pipeline lists
// a tool listed twice twice).
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// sameDerived compares what the judge uses of an entry (its reason's
// wording may differ between versions).
func sameDerived(a, b classify.Entry) bool {
	return a.Name == b.Name && a.Class == b.Class && a.Idempotent == b.Idempotent && slices.Equal(a.KeyFields, b.KeyFields)
}

// delivered checks a transport-level delivery (duplicate.resentBy): only
// the HTTP agent side delivers faults as HTTP, and only injected faults.
func (c *crossLines) delivered(n int, l *Line) error {
	if l.Fault != "" {
		c.handedOff[l.Call] = l.Fault
	}
	agent := c.header.Transport.Agent
	if agent == "" {
		agent = "stdio" // older headers; report.Transport's empty fields are stdio
	}
	switch {
	case !l.TransportFault:
	case agent != "http":
		return lineError(n, ruleTransport, "call %d's fault is recorded as delivered at the transport level, the header's agent side is %s", l.Call, agent)
	case !c.faulted[l.Call] && l.Fault == "":
		return lineError(n, ruleTransport, "call %d's delivery is recorded as transport-level, its answer carried no fault", l.Call)
	}
	return nil
}

// requestSeq checks that a call's request number is its session's own:
// the relay numbers each request of a session once.
func (c *crossLines) requestSeq(n int, l *Line) error {
	if l.RequestSeq == 0 {
		return nil
	}
	seen := c.requestSeqs[l.Session]
	if seen == nil {
		seen = map[int64]bool{}
		c.requestSeqs[l.Session] = seen
	}
	if seen[l.RequestSeq] {
		return lineError(n, ruleRequestSeq, "call %d has request number %d of session %s, which an earlier call of the session has", l.Call, l.RequestSeq, l.Session)
	}
	seen[l.RequestSeq] = true
	return nil
}

// callParamNames are the tools/call params members the relay reads by
// their exact name; it refuses a call with a case variant of one.
var callParamNames = []string{"name", "arguments", "_meta"}

// call checks a call line's tool against its params and its fields
// against the listings.
func (c *crossLines) call(n int, l *Line) error {
	c.lastT[l.Call] = l.T
	c.callTool[l.Call], c.callClass[l.Call] = l.Tool, l.Class
	if err := c.requestSeq(n, l); err != nil {
		return err
	}
	if l.Params != nil {
		// As the relay reads it (relay.session.startCall): the last member
		// named exactly "name", when it is a string; "" otherwise.
		var nameRaw []byte
		var variant string
		_, _ = wire.Members(l.Params, func(m wire.Member) bool {
			switch {
			case m.KeyIs("name"):
				nameRaw = m.Value
			case m.KeyIs("arguments"), m.KeyIs("_meta"):
			default:
				if variant == "" {
					variant, _, _ = m.CaseVariant(callParamNames)
				}
			}
			return true
		})
		if variant != "" {
			return lineError(n, ruleCallTool, "call %d's params have a member %q, which the relay refuses", l.Call, variant)
		}
		name, _ := wire.Unquote(nameRaw)
		if name != l.Tool {
			return lineError(n, ruleCallTool, "call %d is recorded as tool %q, its params name %q", l.Call, l.Tool, name)
		}
	}
	f := callFields{class: l.Class, acceptsKey: l.AcceptsKey, idempotent: l.Idempotent}
	fs, listed := c.allowed[l.Tool]
	if !listed {
		fs = []callFields{notListed}
	}
	if !slices.Contains(fs, f) {
		c.pending = append(c.pending, pendingCall{line: n, call: l.Call, tool: l.Tool, fields: f})
	}
	return nil
}

// answer checks an answer's outcome against its call's forwarding and the
// header's upstream, and an injected 429's retry_after.
func (c *crossLines) answer(n int, l *Line) error {
	fwd := c.forwarded[l.Call]
	c.faulted[l.Call] = l.Fault != ""
	switch {
	case l.Outcome == judge.UpstreamNotExecuted && c.header.Transport.Upstream == "stdio":
		return lineError(n, ruleStdio, "call %d's outcome is upstream-not-executed, the header's upstream is stdio", l.Call)
	case fwd && l.Outcome == judge.InjectedNotExecuted:
		return lineError(n, ruleForwarded, "call %d was forwarded, its answer says injected-not-executed", l.Call)
	case l.Outcome == judge.Incomplete && (!fwd || l.Fault != ""):
		return lineError(n, ruleIncomplete, "call %d's outcome is incomplete, but it was not forwarded or its answer carries a fault", l.Call)
	case l.Outcome == judge.Incomplete && l.Result == nil:
		// Every incomplete answer the pipeline records (the first leg's
		// end, a fault or a cancel on its follow-up) carries the
		// input_required result the upstream sent.
		return lineError(n, ruleIncomplete, "call %d's answer is incomplete without the result that asked for input", l.Call)
	case l.Outcome == judge.UnknownTool && c.callClass[l.Call] != classify.Unknown && !c.delisted[l.Call]:
		// pipeline.outcomeOf gives it only to a call of class unknown; a
		// follow-up answered under its first leg's call has the class of
		// its own time, so a listing since may have dropped the tool.
		return lineError(n, ruleUnknownTool, "call %d's outcome is unknown-tool, its call is of class %s", l.Call, c.callClass[l.Call])
	case l.Outcome == judge.UpstreamNotExecuted && !ownNotExecuted(l.Result):
		return lineError(n, ruleNotExecuted, "call %d's outcome is upstream-not-executed, its result is not the proxy's answer for an HTTP status", l.Call)
	case fwd && l.Fault != "" && l.Outcome != judge.Executed:
		return lineError(n, ruleForwarded, "call %d was forwarded and answered with fault %q, its outcome is %s, not executed", l.Call, l.Fault, l.Outcome)
	}
	// The pipeline settles a handed-over task with its final status: a
	// ghost write carries the fault the agent was handed (a forward-and-
	// replace fault, which has no retry_after), anything else no fault
	// (pipeline.TaskMessage). Another fault, or none on an execution,
	// would let the judge read what the agent saw differently.
	if h, ok := c.handedOff[l.Call]; ok && l.Outcome == judge.Executed && (l.Fault != h || l.RetryAfterMs != 0) {
		return lineError(n, ruleHandedOff, "call %d was handed fault %q, its executed answer carries fault %q and retryAfterMs %d", l.Call, h, l.Fault, l.RetryAfterMs)
	}
	// The pipeline derives these two outcomes from the result's isError
	// (pipeline.outcomeOf); the line holds the result.
	if l.Result != nil && (l.Outcome == judge.Executed || l.Outcome == judge.UpstreamRejected) {
		v, _, _ := wire.Lookup(l.Result, "isError")
		if isErr := string(v) == "true"; isErr != (l.Outcome == judge.UpstreamRejected) {
			return lineError(n, ruleResult, "call %d's answer is %s, its result's isError is %t", l.Call, l.Outcome, isErr)
		}
	}
	if l.Result != nil && l.Outcome == judge.Incomplete {
		v, _, _ := wire.Lookup(l.Result, "resultType")
		if string(v) != `"input_required"` {
			return lineError(n, ruleIncomplete, "call %d's answer is incomplete, its result's resultType is %s, not input_required", l.Call, resultTypeText(v))
		}
	}
	if l.Fault == rateLimitFault {
		want := int64(c.header.Settings.RetryAfter) * 1000
		if l.RetryAfterMs <= 0 || (want > 0 && l.RetryAfterMs != want) {
			return lineError(n, ruleRetryAfter, "call %d's 429 has retryAfterMs %d, the header's retryAfter is %d s", l.Call, l.RetryAfterMs, c.header.Settings.RetryAfter)
		}
	}
	return nil
}

// ownNotExecuted reports whether result is, byte for byte, what the trace
// holds of the HTTP upstream's own not-executed answer (httpupstream's
// ownAnswer, without the _meta mark pipeline.notExecutedProof removes):
// one text content item from agent-harness, isError true and, for
// revisions that require it, resultType "complete".
func ownNotExecuted(result []byte) bool {
	const prefix = `{"content":[{"type":"text","text":"agent-harness: `
	rest, ok := bytes.CutPrefix(result, []byte(prefix))
	if !ok {
		return false
	}
	for _, end := range []string{`}],"isError":true}`, `}],"isError":true,"resultType":"complete"}`} {
		if text, ok := bytes.CutSuffix(rest, []byte(end)); ok {
			var s string
			return json.Unmarshal(append([]byte(`"`), text...), &s) == nil
		}
	}
	return false
}

// rateLimitFault is the fault of an injected 429 (fault.KindRateLimit; the
// trace package does not import the fault package).
const rateLimitFault = "rate_limit"
