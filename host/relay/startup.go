package relay

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/cuonztech/agent-harness/builtin/classify"
	"github.com/cuonztech/agent-harness/internal/wire"
)

// maxListPages bounds the proxy's own tools/list pagination.
const maxListPages = 10000

// startup handles the agent's handshake — initialize, or server/discover
// (SEP-2575) — while the session has not started: forward it unchanged, take
// the upstream's result, list and classify all tools, print the table, then
// answer the agent with the upstream's result. Upstream→agent messages that
// arrive meanwhile are held back and delivered after the answer, in order.
// An error answer reaches the agent unchanged and the session stays
// unstarted: after a failed server/discover the agent falls back to
// initialize.
func (s *session) startup(line []byte, env wire.Envelope) {
	if s.upstreamGone() {
		_ = s.agentW.write(errorLine(env.ID, &RPCError{Code: codeUpstreamGone, Message: textUpstreamUnavailable}))
		return
	}
	p := &pending{kind: kindWait, ch: make(chan upMsg, 1), hold: true, agentID: env.ID}
	key, ok := s.registerAgent(p, wire.IDKey(env.ID), false)
	if !ok {
		_ = s.agentW.write(errorLine(env.ID, &RPCError{Code: codeInvalidRequest, Message: "duplicate request id"}))
		return
	}
	timer := time.NewTimer(s.opts.CallTimeout)
	defer timer.Stop()
	tk, err := s.upW.send(message{line: line, at: env.IDStart, cut: len(env.ID), id: p.upID})
	if err != nil {
		s.unregister(key, p)
		_ = s.agentW.write(errorLine(env.ID, &RPCError{Code: codeUpstreamGone, Message: textUpstreamUnavailable}))
		return
	}
	var m upMsg
	select {
	case m = <-p.ch:
	case <-s.upGone:
		select {
		case m = <-p.ch:
		default:
			s.unregister(key, p)
			s.releaseHold(whole(errorLine(env.ID, &RPCError{Code: codeUpstreamGone, Message: textUpstreamDiedInRequest})))
			return
		}
	case <-timer.C:
		s.upW.withdraw(tk)
		s.abandon(key, p)
		s.log.Printf("the upstream MCP server did not answer %s within %d ms", env.Method, s.opts.CallTimeout.Milliseconds())
		_ = s.agentW.write(errorLine(env.ID, &RPCError{Code: codeInternalError,
			Message: fmt.Sprintf("agent-harness: the upstream MCP server did not answer %s within %d ms", env.Method, s.opts.CallTimeout.Milliseconds())}))
		s.startFailOnce.Do(func() { close(s.startFailed) })
		return
	}
	if m.env.Result == nil {
		// A handshake error reaches the agent unchanged; it may try again
		// (after server/discover: with initialize).
		s.releaseHold(m.message())
		return
	}
	if v, _, ok := wire.Lookup(m.env.Result, "protocolVersion"); ok {
		if pv, ok := wire.Unquote(v); ok {
			s.version.Store(&pv)
		}
	}
	var meta []byte
	if env.Method == methodDiscover {
		var ok bool
		if meta, ok = discoverListMeta(env.Params, m.env.Result); !ok {
			// No stateless protocol version in common: the agent falls
			// back to initialize, which starts the session.
			s.releaseHold(m.message())
			return
		}
	}
	capsTools := hasToolsCapability(m.env.Result)
	s.upHasTools.Store(capsTools)
	s.listMeta.Store(&meta)
	var infos []ToolInfo
	if capsTools {
		var err error
		infos, err = s.listAll(meta)
		if err != nil {
			s.log.Printf("WARNING: could not list all of the upstream's tools: %v", err)
		}
	}
	s.announceTools(infos)
	if len(s.extras.Load().raws) > 0 && !hasToolsCapability(m.env.Result) {
		line, env := m.withAgentID()
		s.releaseHold(whole(s.withToolsCapability(line, env)))
		return
	}
	s.releaseHold(m.message())
}

// listLazily lists the upstream's tools before the agent's first request
// when the session was not started by a handshake the proxy saw (a
// stateless SEP-2575 client may send requests without server/discover). The
// listing carries the request's own SEP-2575 _meta. If the upstream refuses
// it (e.g. a legacy server before initialize), the handshake that follows
// lists the tools; this is tried once.
func (s *session) listLazily(env wire.Envelope) {
	if s.lazyTried.Swap(true) || s.upstreamGone() {
		return
	}
	meta := requestMeta(env.Params, "")
	infos, err := s.listAll(meta)
	if err != nil && len(infos) == 0 {
		s.log.Printf("could not list the upstream's tools before the agent's first request (%s): %v; they are listed after the agent's initialize", env.Method, err)
		return
	}
	if err != nil {
		s.log.Printf("WARNING: could not list all of the upstream's tools: %v", err)
	}
	s.upHasTools.Store(true)
	s.listMeta.Store(&meta)
	s.announceTools(infos)
}

// announceTools installs the first tool list of the session, prints the
// classification table and starts the session.
func (s *session) announceTools(infos []ToolInfo) {
	if infos == nil {
		infos = []ToolInfo{}
	}
	s.toolsMu.Lock()
	s.setTools(infos)
	s.toolsMu.Unlock()
	s.log.Table(classify.Table(infos, s.opts.KeyFieldNames))
	if s.opts.OnTools != nil {
		s.opts.OnTools(infos)
	}
	s.initialized.Store(true)
}

// hasToolsCapability reports whether an initialize or server/discover
// result announces tools.
func hasToolsCapability(result []byte) bool {
	if caps, _, ok := wire.Lookup(result, "capabilities"); ok {
		if t, _, ok := wire.Lookup(caps, "tools"); ok && !wire.IsNull(t) {
			return true
		}
	}
	return false
}

// withToolsCapability is a handshake answer with "tools":{} added to its
// capabilities when the upstream announces none and the proxy offers extra
// tools; otherwise the line unchanged.
func (s *session) withToolsCapability(line []byte, env wire.Envelope) []byte {
	if env.Result == nil || hasToolsCapability(env.Result) || len(s.extras.Load().raws) == 0 {
		return line
	}
	return addToolsCapability(line, env)
}

// listAll lists every upstream tool, following nextCursor, and classifies
// each. meta is the SEP-2575 _meta of the listing requests (nil for the
// legacy protocol). On an error it returns what it has so far.
func (s *session) listAll(meta []byte) ([]ToolInfo, error) {
	infos := []ToolInfo{}
	cursors := make(map[string]bool)
	params := listParams(meta, nil)
	for range maxListPages {
		m, err := s.ownRequest("tools/list", params)
		if err != nil {
			return infos, fmt.Errorf("tools/list: %w", err)
		}
		if m.env.Result == nil {
			return infos, fmt.Errorf("tools/list: the upstream answered with an error: %s", m.env.Error)
		}
		page := parseToolsPage(m.env.Result)
		for _, raw := range page.tools {
			if ti, ok := s.classifyTool(raw); ok {
				infos = append(infos, ti)
			}
		}
		if page.nextCursor == nil {
			return infos, nil
		}
		if cursors[string(page.nextCursor)] {
			return infos, errors.New("tools/list: the upstream repeated a cursor")
		}
		cursors[string(page.nextCursor)] = true
		params = listParams(meta, page.nextCursor)
	}
	return infos, fmt.Errorf("tools/list: more than %d pages", maxListPages)
}

// relist re-reads the tool list after notifications/tools/list_changed.
func (s *session) relist() {
	defer func() {
		s.mu.Lock()
		s.relisting--
		if s.relisting == 0 && s.relisted != nil {
			close(s.relisted)
			s.relisted = nil
		}
		s.noteIdleLocked()
		s.mu.Unlock()
	}()
	s.relistMu.Lock()
	defer s.relistMu.Unlock()
	s.mu.Lock()
	s.relistQueued = false
	s.mu.Unlock()
	var meta []byte
	if m := s.listMeta.Load(); m != nil {
		meta = *m
	}
	infos, err := s.listAll(meta)
	if err != nil {
		s.log.Printf("WARNING: could not re-list the upstream's tools after %s: %v", methodToolsListChanged, err)
		if len(infos) == 0 {
			return
		}
	}
	s.toolsMu.Lock()
	defer s.toolsMu.Unlock()
	if sameEntries(s.tools.Load().order, infos) {
		return
	}
	s.setTools(infos)
	s.log.Info("The upstream's tool list changed.")
	s.log.Table(classify.Table(infos, s.opts.KeyFieldNames))
	if s.opts.OnTools != nil {
		s.opts.OnTools(infos)
	}
}

// waitRelisted waits until no re-listing is in progress (or the upstream
// is gone). Each re-listing waits at most the call timeout per page.
func (s *session) waitRelisted() {
	s.mu.Lock()
	if s.relisting == 0 {
		s.mu.Unlock()
		return
	}
	if s.relisted == nil {
		s.relisted = make(chan struct{})
	}
	ch := s.relisted
	s.mu.Unlock()
	select {
	case <-ch:
	case <-s.upGone:
	}
}

// sameEntries reports whether two classified tool lists are equal.
func sameEntries(a, b []ToolInfo) bool {
	return slices.EqualFunc(a, b, func(x, y ToolInfo) bool {
		return x.Name == y.Name && x.Class == y.Class && x.Reason == y.Reason && slices.Equal(x.KeyFields, y.KeyFields) &&
			x.OutputSchema == y.OutputSchema
	})
}

// answerToolsList passes the upstream's answer to the agent's tools/list:
// tool objects unchanged; tools the proxy did not know yet are learned; the
// extra tools are appended to the last page.
func (s *session) answerToolsList(line []byte, env wire.Envelope) {
	if env.Result == nil {
		s.toAgent(line)
		return
	}
	page := parseToolsPage(env.Result)
	s.learnMissing(page.tools)
	out := line
	if page.nextCursor == nil {
		out = appendTools(line, env.ResultStart, page, s.extras.Load().raws)
	}
	s.toAgent(out)
}

// learnMissing adds tools seen in an agent's listing that the proxy's own
// listing did not return (an upstream that changed its list silently).
// It runs on the upstream reader, so it must not wait for a re-listing.
func (s *session) learnMissing(raws [][]byte) {
	s.toolsMu.Lock()
	defer s.toolsMu.Unlock()
	cur := s.tools.Load()
	var added []ToolInfo
	for _, raw := range raws {
		v, _, _ := wire.Lookup(raw, "name")
		name, ok := wire.Unquote(v)
		if !ok {
			continue
		}
		if cur.has(name) {
			continue
		}
		if ti, ok := s.classifyTool(raw); ok {
			added = append(added, ti)
		}
	}
	if len(added) == 0 {
		return
	}
	infos := append(append([]ToolInfo{}, cur.order...), added...)
	s.setTools(infos)
	s.log.Info("The upstream listed tools it had not listed before.")
	s.log.Table(classify.Table(infos, s.opts.KeyFieldNames))
	if s.opts.OnTools != nil {
		s.opts.OnTools(infos)
	}
}

// localToolsList answers tools/list with the extra tools only (an upstream
// without the tools capability).
func (s *session) localToolsList(id []byte) []byte {
	b := []byte(`{"tools":[`)
	for i, raw := range s.extras.Load().raws {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, raw...)
	}
	b = append(b, "]}"...)
	return resultLine(id, b)
}

// addToolsCapability adds "tools":{} to the capabilities of an initialize
// result that has none, leaving every other byte as it was.
func addToolsCapability(line []byte, env wire.Envelope) []byte {
	res := env.Result
	at := -1
	insert := ""
	if caps, capsStart, ok := wire.Lookup(res, "capabilities"); ok && len(caps) > 0 && caps[0] == '{' {
		at = env.ResultStart + capsStart + 1
		insert = `"tools":{}`
		if !isEmptyObject(caps) {
			insert += ","
		}
	} else if !ok && len(res) > 0 && res[0] == '{' {
		at = env.ResultStart + 1
		insert = `"capabilities":{"tools":{}}`
		if !isEmptyObject(res) {
			insert += ","
		}
	}
	if at < 0 {
		return line
	}
	out := make([]byte, 0, len(line)+len(insert))
	out = append(out, line[:at]...)
	out = append(out, insert...)
	return append(out, line[at:]...)
}

func isEmptyObject(obj []byte) bool {
	n := 0
	_, _ = wire.Members(obj, func(wire.Member) bool { n++; return false })
	return n == 0
}
