package relay

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cuonztech/agent-harness/host/relay/internal/proc"
	"github.com/cuonztech/agent-harness/internal/wire"
)

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
}

// upMsg is one message from the upstream with its envelope; agentID, when
// not nil, is the agent's own id that replaces the proxy's in env.ID.
type upMsg struct {
	line    []byte
	env     wire.Envelope
	agentID []byte
}

// callState tracks one of the agent's tools/call requests in progress.
type callState struct {
	cancelled atomic.Bool
}

// extraSet is the set of extra (audit) tools currently offered.
type extraSet struct {
	raws  []json.RawMessage
	names map[string]bool
}

// session is one relay run: one upstream process, one agent.
type session struct {
	opts    Options
	log     *logger
	tail    tail
	proc    *proc.Process
	callCtx context.Context

	agentW *lineWriter
	upW    *upWriter
	upR    func() ([]byte, error) // the upstream's next message

	mu sync.Mutex
	// pending: requests sent to the upstream, by the IDKey of the id the
	// upstream got; open: the agent's requests among them, by the IDKey
	// of the agent's id; calls: the agent's tools/call requests in the
	// pipeline, by the IDKey of the agent's id.
	pending map[string]*pending
	open    map[string]*pending
	calls   map[string]*callState
	// answering counts calls whose answer is being written.
	answering int
	// relisting counts re-listings started and not finished;
	// relistQueued says one is started but has not begun listing, so
	// further list_changed notifications need no other.
	relisting    int
	relistQueued bool
	// relisted, when not nil, is closed once relisting drops to 0.
	relisted chan struct{}
	// idleWait, when not nil, is closed once no request is open.
	idleWait chan struct{}

	holdMu  sync.Mutex
	holding bool
	held    []message

	tools      atomic.Pointer[toolSet]
	extras     atomic.Pointer[extraSet]
	allExtras  []extraTool
	upHasTools atomic.Bool
	// initialized: the session has started (a handshake was answered with
	// a result, or the lazy listing succeeded) and the tools are listed.
	initialized atomic.Bool
	// lazyTried: the listing before the agent's first request was tried.
	lazyTried atomic.Bool
	// listMeta is the SEP-2575 _meta of the proxy's own tools/list
	// requests (nil: the legacy protocol).
	listMeta atomic.Pointer[[]byte]
	// version is the protocol version of the upstream's initialize
	// result (nil before it); a SEP-2575 request carries its own.
	version    atomic.Pointer[string]
	relistMu   sync.Mutex // one re-listing at a time
	toolsMu    sync.Mutex // read-modify-write of tools
	warnedJSON atomic.Bool

	ownSeq  atomic.Int64
	upSeq   atomic.Int64 // ids of the agent's requests on the upstream side
	callSeq atomic.Int64

	// baton hands the reading of the agent's input to a spare worker;
	// agentEOF is closed at the end of the agent's input.
	baton    chan struct{}
	agentEOF chan struct{}

	upGone       chan struct{}
	upGoneOnce   sync.Once
	upReaderDone chan struct{}
	stderrDone   chan struct{}
	// goneAtStop records, before the proxy stops the upstream, whether it
	// was already gone: then its exit was a crash, not the proxy's doing.
	goneAtStop atomic.Bool
	// exitWatched is closed when watchExit has reported (or decided not to).
	exitWatched   chan struct{}
	agentGone     chan struct{}
	agentGoneOnce sync.Once
	startFailed   chan struct{}
	startFailOnce sync.Once
}

// extraTool is one of Options.ExtraTools with its name.
type extraTool struct {
	name string
	raw  json.RawMessage
}

func newSession(ctx context.Context, opts Options) (*session, error) {
	s := &session{
		opts:         opts,
		log:          &logger{w: opts.Stderr, quiet: opts.Quiet},
		callCtx:      context.WithoutCancel(ctx),
		pending:      make(map[string]*pending),
		open:         make(map[string]*pending),
		calls:        make(map[string]*callState),
		baton:        make(chan struct{}),
		agentEOF:     make(chan struct{}),
		upGone:       make(chan struct{}),
		upReaderDone: make(chan struct{}),
		stderrDone:   make(chan struct{}),
		exitWatched:  make(chan struct{}),
		agentGone:    make(chan struct{}),
		startFailed:  make(chan struct{}),
	}
	for i, raw := range opts.ExtraTools {
		v, _, ok := wire.Lookup(raw, "name")
		name, ok2 := wire.Unquote(v)
		if !ok || !ok2 || name == "" || !wire.Valid(raw) {
			return nil, errors.New("extra tool " + strconv.Itoa(i) + " is not a JSON object with a string name")
		}
		s.allExtras = append(s.allExtras, extraTool{name: name, raw: raw})
	}
	var agentOut io.Writer = opts.Stdout
	if opts.Agent != nil {
		agentOut = &connWriter{c: opts.Agent}
	}
	s.agentW = newLineWriter(agentOut, func(error) { s.agentGoneOnce.Do(func() { close(s.agentGone) }) })
	s.setTools(nil)
	return s, nil
}

// setTools installs a new upstream tool list and recomputes which extra
// tools are offered (an upstream tool of the same name wins).
func (s *session) setTools(infos []ToolInfo) {
	ts := newToolSet(infos)
	s.tools.Store(ts)
	es := &extraSet{names: make(map[string]bool)}
	for _, e := range s.allExtras {
		if ts.has(e.name) {
			if infos != nil {
				s.log.Printf("WARNING: the upstream has its own tool %q; the proxy's tool of that name is not offered.", e.name)
			}
			continue
		}
		es.raws = append(es.raws, e.raw)
		es.names[e.name] = true
	}
	s.extras.Store(es)
}

func (s *session) upstreamGone() bool {
	select {
	case <-s.upGone:
		return true
	default:
		return false
	}
}

// toAgent forwards one upstream message to the agent, or holds it back while
// the agent's initialize is being answered.
func (s *session) toAgent(line []byte) { s.toAgentMsg(whole(line)) }

// toAgentMsg is toAgent for a message whose id may be replaced.
func (s *session) toAgentMsg(m message) {
	s.holdMu.Lock()
	if s.holding {
		s.held = append(s.held, m)
		s.holdMu.Unlock()
		return
	}
	s.holdMu.Unlock()
	_ = s.agentW.writeMsg(m)
}

func (s *session) startHolding() {
	s.holdMu.Lock()
	s.holding = true
	s.holdMu.Unlock()
}

// releaseHold writes first (the initialize answer; none when its line is
// nil), then every held message, in order, and stops holding.
func (s *session) releaseHold(first message) {
	s.holdMu.Lock()
	defer s.holdMu.Unlock()
	if first.line != nil {
		_ = s.agentW.writeMsg(first)
	}
	for _, m := range s.held {
		_ = s.agentW.writeMsg(m)
	}
	s.held = nil
	s.holding = false
}

// register adds a pending entry for one of the proxy's own requests under
// the IDKey of its id; it fails when the key is in use.
func (s *session) register(key string, p *pending) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.pending[key]; dup {
		return false
	}
	s.pending[key] = p
	return true
}

// registerAgent gives one of the agent's requests (p.agentID, whose IDKey
// is agentKey) an id of the proxy's own for the upstream (p.upID) and
// registers it; the returned key is that id's. It fails when the agent's id
// is open (MCP forbids reusing an id while its request is open); inCall
// says the id is the caller's own entry in calls.
func (s *session) registerAgent(p *pending, agentKey string, inCall bool) (key string, ok bool) {
	p.agentKey = agentKey
	p.upID = strconv.AppendInt(p.upIDBuf[:0], s.upSeq.Add(1), 10)
	key = wire.IDKey(p.upID)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.open[p.agentKey]; dup {
		return "", false
	}
	if _, dup := s.calls[p.agentKey]; dup && !inCall {
		return "", false
	}
	s.open[p.agentKey] = p
	s.pending[key] = p
	return key, true
}

// agentIDOpenLocked reports whether the agent's id (by IDKey) is in use.
func (s *session) agentIDOpenLocked(agentKey string) bool {
	_, a := s.open[agentKey]
	_, b := s.calls[agentKey]
	return a || b
}

// removeLocked forgets p (registered under key).
func (s *session) removeLocked(key string, p *pending) {
	if s.pending[key] == p {
		delete(s.pending, key)
	}
	if p.agentKey != "" && s.open[p.agentKey] == p {
		delete(s.open, p.agentKey)
	}
}

func (s *session) unregister(key string, p *pending) {
	s.mu.Lock()
	s.removeLocked(key, p)
	s.noteIdleLocked()
	s.mu.Unlock()
}

// abandon marks a waiter's entry so a late response is dropped; the agent's
// id is free again (its answer is the proxy's).
func (s *session) abandon(key string, p *pending) {
	s.mu.Lock()
	if s.pending[key] == p {
		p.kind = kindAbandoned
		if p.agentKey != "" && s.open[p.agentKey] == p {
			delete(s.open, p.agentKey)
		}
		s.noteIdleLocked()
	}
	s.mu.Unlock()
}

// noteIdleLocked wakes waitIdle when no request is open any more.
func (s *session) noteIdleLocked() {
	if s.idleWait != nil && !s.busyLocked() {
		close(s.idleWait)
		s.idleWait = nil
	}
}

// busyLocked reports whether a request is still open: a call in the
// pipeline or a request waiting for the upstream's answer.
func (s *session) busyLocked() bool {
	if len(s.calls) > 0 || s.relisting > 0 || s.answering > 0 {
		return true
	}
	for _, p := range s.pending {
		if p.kind != kindAbandoned && !p.stream {
			return true
		}
	}
	return false
}

// waitIdle waits until no request is open, at most d.
func (s *session) waitIdle(d time.Duration) {
	s.mu.Lock()
	if !s.busyLocked() {
		s.mu.Unlock()
		return
	}
	if s.idleWait == nil {
		s.idleWait = make(chan struct{})
	}
	ch := s.idleWait
	s.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	}
}

func isBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}
