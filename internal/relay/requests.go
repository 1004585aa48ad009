package relay

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cuonztech/agent-harness/internal/wire"
)

// requests is the table of open requests: every request sent to the
// upstream whose answer is awaited, under the id the upstream got (an id of
// the proxy's own, see doc.go); the agent's requests among them under the
// agent's id; and the agent's tools/calls in the pipeline. It gives out the
// upstream ids, refuses an agent id that is still open, hands an answer to
// its request, and tells the session end when nothing is open any more.
type requests struct {
	mu sync.Mutex
	// pending: requests sent to the upstream, by the IDKey of the id the
	// upstream got; open: the agent's requests among them, by the IDKey
	// of the agent's id; calls: the agent's tools/call requests in the
	// pipeline, by the IDKey of the agent's id.
	pending map[string]*pending
	open    map[string]*pending
	calls   map[string]*callState
	// working counts other work the session end waits for: answers being
	// written, re-listings in progress.
	working int
	// idleWait, when not nil, is closed once no request is open.
	idleWait chan struct{}

	ownSeq atomic.Int64 // ids of the proxy's own requests
	upSeq  atomic.Int64 // ids of the agent's requests on the upstream side
}

// pendingKind says what happens with the upstream's response to a request.
type pendingKind int

const (
	// kindPlain: the agent's request; the response is forwarded unchanged.
	kindPlain pendingKind = iota
	// kindList: the agent's tools/list; the response is learned from and
	// gets the extra tools on its last page.
	kindList
	// kindHandshake: the agent's initialize or server/discover after the
	// session started; the answer gets "tools":{} when the proxy must
	// announce tools.
	kindHandshake
	// kindWait: a goroutine waits on ch (a tools/call, the initialize, the
	// proxy's own requests).
	kindWait
	// kindAbandoned: the waiter gave up (timeout); a late response is
	// dropped, the agent already has its answer.
	kindAbandoned
)

// pending is a request sent to the upstream whose response is awaited.
type pending struct {
	kind pendingKind
	// agentID is the agent's own id bytes (nil for the proxy's own
	// requests), agentKey its IDKey; upID is the id the upstream got.
	agentID  []byte
	agentKey string
	upID     []byte
	upIDBuf  [20]byte // holds upID
	ch       chan upMsg
	// hold: when the response arrives, hold back further upstream→agent
	// messages until the agent has its initialize answer.
	hold bool
	// stream: a request that stays open for the whole session
	// (subscriptions/listen); the end of the session does not wait for it.
	stream bool
	// taskMethod and taskID: the agent's task request (tasks.go), whose
	// answer a TaskObserver is told of.
	taskMethod, taskID string
}

// callState tracks one of the agent's tools/call requests in progress.
type callState struct {
	cancelled atomic.Bool
}

func newRequests() *requests {
	return &requests{
		pending: make(map[string]*pending),
		open:    make(map[string]*pending),
		calls:   make(map[string]*callState),
	}
}

// registerOwn gives one of the proxy's own requests a string id
// "agent-harness/N", apart from the numeric ids of the agent's requests,
// and registers it; key is that id's IDKey.
func (t *requests) registerOwn(p *pending) (id []byte, key string) {
	for {
		id = []byte(strconv.Quote("agent-harness/" + strconv.FormatInt(t.ownSeq.Add(1), 10)))
		key = wire.IDKey(id)
		t.mu.Lock()
		_, dup := t.pending[key]
		if !dup {
			t.pending[key] = p
		}
		t.mu.Unlock()
		if !dup {
			return id, key
		}
	}
}

// registerAgent gives one of the agent's requests (p.agentID, whose IDKey
// is agentKey) an id of the proxy's own for the upstream (p.upID) and
// registers it; the returned key is that id's. It fails when the agent's id
// is open (MCP forbids reusing an id while its request is open); inCall
// says the id is the caller's own entry in calls.
func (t *requests) registerAgent(p *pending, agentKey string, inCall bool) (key string, ok bool) {
	p.agentKey = agentKey
	p.upID = strconv.AppendInt(p.upIDBuf[:0], t.upSeq.Add(1), 10)
	key = wire.IDKey(p.upID)
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, dup := t.open[p.agentKey]; dup {
		return "", false
	}
	if _, dup := t.calls[p.agentKey]; dup && !inCall {
		return "", false
	}
	t.open[p.agentKey] = p
	t.pending[key] = p
	return key, true
}

// openCall registers one of the agent's tools/calls in the pipeline under
// the IDKey of its id; it fails when that id is in use.
func (t *requests) openCall(agentKey string, cs *callState) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, a := t.open[agentKey]
	_, b := t.calls[agentKey]
	if a || b {
		return false
	}
	t.calls[agentKey] = cs
	return true
}

// byAgentID returns what is open under the agent's id (by IDKey): its
// tools/call in the pipeline, its request at the upstream.
func (t *requests) byAgentID(agentKey string) (*callState, *pending) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.calls[agentKey], t.open[agentKey]
}

// removeLocked forgets p (registered under key).
func (t *requests) removeLocked(key string, p *pending) {
	if t.pending[key] == p {
		delete(t.pending, key)
	}
	if p.agentKey != "" && t.open[p.agentKey] == p {
		delete(t.open, p.agentKey)
	}
}

// unregister forgets p (registered under key); still reports whether it
// was registered (no answer took it meanwhile).
func (t *requests) unregister(key string, p *pending) (still bool) {
	t.mu.Lock()
	_, still = t.pending[key]
	t.removeLocked(key, p)
	t.noteIdleLocked()
	t.mu.Unlock()
	return still
}

// abandon marks a waiter's entry so a late response is dropped; the agent's
// id is free again (its answer is the proxy's).
func (t *requests) abandon(key string, p *pending) {
	t.mu.Lock()
	if t.pending[key] == p {
		p.kind = kindAbandoned
		if p.agentKey != "" && t.open[p.agentKey] == p {
			delete(t.open, p.agentKey)
		}
		t.noteIdleLocked()
	}
	t.mu.Unlock()
}

// take removes and returns the request an answer with the upstream id key
// answers (nil when none is open) and its kind at that moment.
func (t *requests) take(key string) (*pending, pendingKind) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.pending[key]
	if p == nil {
		return nil, 0
	}
	t.removeLocked(key, p)
	t.noteIdleLocked()
	return p, p.kind
}

// takeForwarded removes the agent's requests that are forwarded as they
// are answered (plain, tools/list, handshake: nobody waits for them) and
// returns their agent ids; the upstream is gone.
func (t *requests) takeForwarded() (agentIDs [][]byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for key, p := range t.pending {
		if p.kind == kindPlain || p.kind == kindList || p.kind == kindHandshake {
			agentIDs = append(agentIDs, p.agentID)
			t.removeLocked(key, p)
		}
	}
	t.noteIdleLocked()
	return agentIDs
}

// endCall forgets a tools/call that needs no answer written.
func (t *requests) endCall(agentKey string) {
	t.mu.Lock()
	delete(t.calls, agentKey)
	t.noteIdleLocked()
	t.mu.Unlock()
}

// answering frees a tools/call's agent id before its answer is written
// (the agent may reuse the id as soon as it reads the answer), while the
// session end still waits for the answer (until done).
func (t *requests) answering(agentKey string) {
	t.mu.Lock()
	delete(t.calls, agentKey)
	t.working++
	t.mu.Unlock()
}

// begin counts work the session end waits for, until done.
func (t *requests) begin() {
	t.mu.Lock()
	t.working++
	t.mu.Unlock()
}

// done ends work counted by begin or answering.
func (t *requests) done() {
	t.mu.Lock()
	t.working--
	t.noteIdleLocked()
	t.mu.Unlock()
}

// noteIdleLocked wakes waitIdle when no request is open any more.
func (t *requests) noteIdleLocked() {
	if t.idleWait != nil && !t.busyLocked() {
		close(t.idleWait)
		t.idleWait = nil
	}
}

// busyLocked reports whether a request is still open: a call in the
// pipeline or a request waiting for the upstream's answer.
func (t *requests) busyLocked() bool {
	if len(t.calls) > 0 || t.working > 0 {
		return true
	}
	for _, p := range t.pending {
		if p.kind != kindAbandoned && !p.stream {
			return true
		}
	}
	return false
}

// waitIdle waits until no request is open, at most d.
func (t *requests) waitIdle(d time.Duration) {
	t.mu.Lock()
	if !t.busyLocked() {
		t.mu.Unlock()
		return
	}
	if t.idleWait == nil {
		t.idleWait = make(chan struct{})
	}
	ch := t.idleWait
	t.mu.Unlock()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ch:
	case <-timer.C:
	}
}
