package relay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cuonztech/agent-harness/internal/proc"
	"github.com/cuonztech/agent-harness/internal/wire"
)

// SharedUpstream is one stdio upstream process that several relay sessions
// share (--listen with a stdio upstream, behaviour §8.3): the agent sessions
// then reach one backend, as the judge assumes. Each session gets a Conn
// (Session) to use as its Options.Upstream (a ConnUpstream); the relay under it is the
// same as for any message-level upstream.
//
// What the process sees is one MCP session:
//   - the first initialize is forwarded (with the first session's client
//     capabilities); every later one is answered from its result and never
//     reaches the process; it gets exactly one notifications/initialized,
//     the first after its successful initialize;
//   - every request gets an id of the proxy's own (1, 2, 3, … for the
//     process), and a progressToken one of the proxy's own, so answers,
//     progress and cancellations find their session; progress for a
//     request no longer open is dropped;
//   - the answer to a tools/call reaches its session's relay (and so the
//     judge) even after the session ended, for at most the call timeout;
//   - notifications/*/list_changed and notifications/resources/updated
//     go to every session; notifications/cancelled of a server request to
//     the session that got the request; a request of the server, and any
//     other message, to the session with the newest tools/call in flight,
//     else to the newest session.
//
// The process is started by StartShared and stopped by Stop, never by a
// session's end: a session's Close only detaches it.
type SharedUpstream struct {
	opts Options
	log  *logger
	proc *proc.Process
	upW  *upWriter
	tail tail

	mu   sync.Mutex
	seq  int64                 // the process's request ids
	reqs map[string]*sharedReq // open requests, by IDKey of the process's id
	toks map[string]*sharedReq // by the proxy's progress token
	srv  map[string]serverReq  // the process's requests, by IDKey of their id
	// conns are the attached sessions in order of attachment.
	conns []*sharedConn
	init  sharedInit
	gone  bool
	// exitWatched is closed once the process's exit was reported (or
	// found to be the proxy's own doing).
	exitWatched chan struct{}
	readerDone  chan struct{}
	// startFailed is closed when the process exited before any session
	// started (see started).
	startFailed chan struct{}
	// used: a request other than a handshake or ping was sent to the
	// process (a stateless session's tools/list or tools/call): from then
	// on an exit is a crash, not a start failure, whether or not any
	// initialize was answered (behaviour §8.3).
	used bool
	// stateless: a SEP-2575 request (a params._meta protocol version of
	// 2026-07-28 or later; server/discover included) reached the process
	// before any initialize got a result. Such a server (the go-sdk's)
	// takes its session as set up by it and refuses a later initialize;
	// the session that sent that one is told why (statelessInitError).
	stateless bool
	stopping  bool
	// warnedProgress: a progress notification for no open request was
	// reported once.
	warnedProgress atomic.Bool
}

// sharedInit is the shared process's handshake.
type sharedInit struct {
	result  []byte      // the first successful initialize result (nil before)
	caps    []string    // the client capabilities it was sent with
	pending *sharedReq  // the initialize the process is answering
	waiting []sharedMsg // later initializes while pending
	// initialized: notifications/initialized was forwarded once, after
	// the successful initialize; held is one sent while an initialize
	// was being answered, forwarded if that one succeeds.
	initialized bool
	held        []byte
}

// serverReq is a request of the process and the session it went to.
type serverReq struct {
	c  *sharedConn
	id []byte
}

// sharedMsg is one session's message held back by the handshake.
type sharedMsg struct {
	c   *sharedConn
	msg []byte
}

// sharedReq is one request sent to the process: whose it is and under
// which ids.
type sharedReq struct {
	c      *sharedConn
	id     []byte // the session's id
	upKey  string // IDKey of the process's id
	tok    []byte // the session's progress token (nil: none)
	tokKey string // the proxy's token, as IDKey
	call   bool   // a tools/call
	init   bool   // the initialize the process answers
	caps   []string
	seq    int64
}

// testHookServerRequestRouted, when set (tests only), runs once a request
// of the process was given its session, before it is queued there.
var testHookServerRequestRouted func(c *sharedConn)

// errSharedGone ends the reads of every session once the shared process is
// gone.
var errSharedGone = errors.New("the shared upstream process is gone")

// StartShared starts the upstream process of opts.Upstream (a
// CommandUpstream) for sessions to share; its stderr goes to opts.Stderr as
// on stdio. An IOUpstream is shared instead (no process); a ConnUpstream
// cannot be. A start failure wraps ErrStartFailed.
func StartShared(opts Options) (*SharedUpstream, error) {
	opts = opts.withDefaults()
	u := &SharedUpstream{
		opts: opts,
		log:  &logger{w: opts.Stderr, quiet: opts.Quiet},
		reqs: map[string]*sharedReq{}, toks: map[string]*sharedReq{}, srv: map[string]serverReq{},
		exitWatched: make(chan struct{}), readerDone: make(chan struct{}), startFailed: make(chan struct{}),
	}
	if opts.Upstream == nil {
		return nil, errors.New("relay: no upstream command")
	}
	if err := opts.Upstream.share(u); err != nil {
		return nil, err
	}
	return u, nil
}

// Session attaches a new agent session, named name in log lines, and
// returns its side of the shared process.
func (u *SharedUpstream) Session(name string) Conn {
	c := &sharedConn{u: u, name: name, up: map[string][]byte{}}
	c.cond.L = &c.mu
	u.mu.Lock()
	u.conns = append(u.conns, c)
	gone := u.gone
	u.mu.Unlock()
	if gone {
		c.markGone()
	}
	return c
}

// Stop stops the process (stdin closed, wait, SIGTERM, wait, SIGKILL, each
// wait opts.StopGrace) once no session needs it; sessions still attached
// see it gone.
func (u *SharedUpstream) Stop() {
	u.mu.Lock()
	u.stopping = true
	u.mu.Unlock()
	u.upW.flush(u.opts.StopGrace)
	if u.proc == nil {
		u.upW.close()
		if c, ok := u.opts.Upstream.(IOUpstream); ok {
			_ = c.RW.Close()
		}
		return
	}
	u.proc.Stop(u.opts.StopGrace)
	select {
	case <-u.exitWatched:
	case <-time.After(exitDrain + stderrDrain + u.opts.StopGrace):
	}
	u.upW.close()
	u.proc.Close()
}

// markGone records that the process is gone: every session's reads end
// after what was delivered to it.
func (u *SharedUpstream) markGone() {
	u.mu.Lock()
	if u.gone {
		u.mu.Unlock()
		return
	}
	u.gone = true
	conns := append([]*sharedConn(nil), u.conns...)
	u.mu.Unlock()
	for _, c := range conns {
		c.markGone()
	}
}

// watchExit reports an exit the proxy did not ask for, with the tail of
// the process's stderr, as a per-session upstream's is reported.
func (u *SharedUpstream) watchExit(stderrDone <-chan struct{}) {
	defer close(u.exitWatched)
	<-u.proc.Done()
	select {
	case <-u.readerDone:
	case <-time.After(exitDrain):
	}
	u.markGone()
	u.mu.Lock()
	stopping, started := u.stopping, u.init.result != nil || u.used
	u.mu.Unlock()
	if stopping {
		return
	}
	select {
	case <-stderrDone:
	case <-time.After(stderrDrain):
	}
	how := u.proc.ExitDescription()
	lines := []string{fmt.Sprintf("the shared upstream MCP server exited unexpectedly (%s); later tool calls of every session get UPSTREAM_UNAVAILABLE", how)}
	if !started {
		lines[0] = fmt.Sprintf("the upstream MCP server exited before the session started (%s)", how)
	}
	if t := u.tail.snapshot(); len(t) > 0 {
		lines = append(lines, "last lines of the upstream's stderr:")
		for _, l := range t {
			lines = append(lines, "  | "+l)
		}
	} else {
		lines = append(lines, "the upstream wrote nothing to stderr")
	}
	u.log.Lines(lines...)
	if !started {
		close(u.startFailed)
	}
}

// StartFailed is closed when the process exited before any session started
// (as on stdio, a start failure: behaviour §8.3).
func (u *SharedUpstream) StartFailed() <-chan struct{} { return u.startFailed }

// copyStderr copies the process's stderr to ours, as on stdio.
func (u *SharedUpstream) copyStderr(done chan<- struct{}) {
	defer close(done)
	br := bufio.NewReaderSize(u.proc.Stderr(), 16<<10)
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			line := string(bytes.TrimRight(chunk, "\r\n"))
			u.log.Printf("upstream: %s", line)
			u.tail.add(line)
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}

// send writes one message to the process; false when it is gone.
func (u *SharedUpstream) send(msg []byte) bool {
	_, err := u.upW.send(whole(msg))
	return err == nil
}

// fromSession handles one message a session's relay writes to the process.
func (u *SharedUpstream) fromSession(c *sharedConn, msg []byte) error {
	env, err := wire.ParseEnvelope(msg)
	if err != nil {
		u.send(msg) // the relay forwards what it cannot parse unchanged
		return nil
	}
	switch {
	case env.IsRequest() && env.Method == methodInitialize:
		return u.initialize(c, msg, env)
	case env.IsRequest():
		return u.request(c, msg, env, false)
	case env.IsNotification():
		u.notification(c, msg, env)
	case env.ID != nil && usableID(env.ID):
		// The answer to a request of the process: only from the session
		// that got it.
		key := wire.IDKey(env.ID)
		u.mu.Lock()
		ok := u.srv[key].c == c
		if ok {
			delete(u.srv, key)
		}
		u.mu.Unlock()
		if !ok {
			u.log.Printf("WARNING: session %s answered a request of the shared upstream that was not sent to it (id %s); it was dropped", c.name, shortID(env.ID))
			return nil
		}
		u.send(msg)
	default:
		u.send(msg)
	}
	return nil
}

// request forwards a session's request with an id (and progress token) of
// the proxy's own.
func (u *SharedUpstream) request(c *sharedConn, msg []byte, env wire.Envelope, init bool) error {
	r := &sharedReq{c: c, id: append([]byte(nil), env.ID...), call: env.Method == methodToolsCall, init: init}
	var edits []splice
	tok, tokAt := progressTokenOf(env)
	u.mu.Lock()
	u.seq++
	r.seq = u.seq
	upID := strconv.AppendInt(nil, u.seq, 10)
	r.upKey = wire.IDKey(upID)
	edits = append(edits, splice{at: env.IDStart, cut: len(env.ID), with: upID})
	if tok != nil {
		proxyTok := []byte(strconv.Quote("agent-harness/p" + strconv.FormatInt(u.seq, 10)))
		r.tok, r.tokKey = append([]byte(nil), tok...), wire.IDKey(proxyTok)
		u.toks[r.tokKey] = r
		edits = append(edits, splice{at: tokAt, cut: len(tok), with: proxyTok})
	}
	if init {
		r.caps = clientCapabilities(env.Params)
		u.init.pending = r
	}
	u.reqs[r.upKey] = r
	c.up[wire.IDKey(env.ID)] = upID
	if !init && env.Method != methodDiscover && env.Method != methodPing {
		u.used = true
	}
	if !init && u.init.result == nil && requestMeta(env.Params, "") != nil {
		u.stateless = true
	}
	u.mu.Unlock()
	if !u.send(spliced(msg, edits)) {
		u.forget(r)
		return errSharedGone
	}
	return nil
}

// forget removes an open request (its answer came, or it was not sent).
func (u *SharedUpstream) forget(r *sharedReq) {
	u.mu.Lock()
	u.forgetLocked(r)
	u.mu.Unlock()
}

func (u *SharedUpstream) forgetLocked(r *sharedReq) {
	delete(u.reqs, r.upKey)
	if r.tokKey != "" {
		delete(u.toks, r.tokKey)
	}
	if k := wire.IDKey(r.id); r.c.up[k] != nil && wire.IDKey(r.c.up[k]) == r.upKey {
		delete(r.c.up, k)
	}
}

// initialize forwards the first initialize; a later one is answered from
// its result (waiting while the first is being answered).
func (u *SharedUpstream) initialize(c *sharedConn, msg []byte, env wire.Envelope) error {
	u.mu.Lock()
	if u.init.result != nil {
		u.mu.Unlock()
		u.answerFromInit(c, env)
		return nil
	}
	if u.init.pending != nil {
		u.init.waiting = append(u.init.waiting, sharedMsg{c: c, msg: msg})
		u.mu.Unlock()
		return nil
	}
	u.init.pending = &sharedReq{} // replaced by the request itself
	u.mu.Unlock()
	return u.forwardInit(c, msg, env)
}

// forwardInit sends an initialize to the process on behalf of c; the
// caller has set init.pending (to a placeholder) so later ones wait.
func (u *SharedUpstream) forwardInit(c *sharedConn, msg []byte, env wire.Envelope) error {
	return u.request(c, msg, env, true)
}

// answerFromInit answers a later session's initialize with the shared
// process's result; capabilities the first session did not declare get
// one line on stderr (they never reach the process).
func (u *SharedUpstream) answerFromInit(c *sharedConn, env wire.Envelope) {
	u.mu.Lock()
	result, first := u.init.result, u.init.caps
	u.mu.Unlock()
	var missing []string
	for _, k := range clientCapabilities(env.Params) {
		if !containsString(first, k) {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		u.log.Printf("WARNING: session %s declares client capabilities %s that the shared upstream was not initialised with (it was initialised once, with the first session's); the upstream does not know of them", c.name, strings.Join(missing, ", "))
	}
	if asked, shared := stringMember(env.Params, "protocolVersion"), stringMember(result, "protocolVersion"); asked != "" && shared != "" && asked != shared {
		u.log.Printf("WARNING: session %s asked for protocol version %s; the shared upstream was initialised once, with the first session's, and speaks %s: the session is answered with %s", c.name, asked, shared, shared)
	}
	c.push(resultLine(env.ID, result))
}

// initAnswered handles the process's answer to the pending initialize.
func (u *SharedUpstream) initAnswered(r *sharedReq, env wire.Envelope) {
	u.mu.Lock()
	if u.init.pending != r {
		u.mu.Unlock()
		return
	}
	u.init.pending = nil
	waiting := u.init.waiting
	u.init.waiting = nil
	if env.Result != nil {
		u.init.result = append([]byte(nil), env.Result...)
		u.init.caps = r.caps
	}
	ok := u.init.result != nil
	held := u.init.held
	u.init.held = nil
	if !ok || u.init.initialized {
		held = nil // a failed handshake's notifications/initialized is not the process's
	}
	if held != nil {
		u.init.initialized = true
	}
	u.mu.Unlock()
	if held != nil {
		u.send(held)
	}
	for i, w := range waiting {
		we, _ := wire.ParseEnvelope(w.msg)
		if ok {
			u.answerFromInit(w.c, we)
			continue
		}
		// The first failed: the next one is the process's handshake, the
		// rest wait for it.
		u.mu.Lock()
		u.init.waiting = append(u.init.waiting, waiting[i+1:]...)
		u.init.pending = &sharedReq{}
		u.mu.Unlock()
		_ = u.forwardInit(w.c, w.msg, we)
		return
	}
}

// notification forwards a session's notification: notifications/initialized
// once, after the successful initialize (one sent before it, or after a
// failed one, is not forwarded: the process would take its handshake as
// done), a cancellation with the process's id of the request it names.
func (u *SharedUpstream) notification(c *sharedConn, msg []byte, env wire.Envelope) {
	switch env.Method {
	case "notifications/initialized":
		u.mu.Lock()
		send := false
		switch {
		case u.init.initialized:
		case u.init.result != nil:
			u.init.initialized, send = true, true
		case u.init.pending != nil:
			u.init.held = msg // forwarded if the initialize being answered succeeds
		}
		u.mu.Unlock()
		if send {
			u.send(msg)
		}
	case methodCancelled:
		v, at, ok := wire.Lookup(env.Params, "requestId")
		if !ok {
			return // it names no request of the process
		}
		u.mu.Lock()
		upID := c.up[wire.IDKey(v)]
		u.mu.Unlock()
		if upID == nil {
			return // not open: the id may be another session's
		}
		u.send(spliced(msg, []splice{{at: env.ParamsStart + at, cut: len(v), with: upID}}))
	default:
		u.send(msg)
	}
}

// read dispatches every message the process writes.
func (u *SharedUpstream) read(next func() ([]byte, error)) {
	defer close(u.readerDone)
	for {
		line, err := next()
		if len(line) > 0 && !isBlank(line) {
			u.fromProcess(line)
		}
		if err != nil {
			break
		}
	}
	u.markGone()
}

// fromProcess routes one message of the process to its session(s).
func (u *SharedUpstream) fromProcess(line []byte) {
	env, err := wire.ParseEnvelope(line)
	if err != nil {
		u.toTarget(line)
		return
	}
	switch {
	case !env.HasMethod && usableID(env.ID):
		u.response(line, env)
	case env.IsRequest():
		// Chosen and registered in one step: a session that ends after it
		// answers the request with an error in detach; one that ended
		// before it is not chosen.
		u.mu.Lock()
		c := u.targetLocked()
		if c != nil {
			u.srv[wire.IDKey(env.ID)] = serverReq{c: c, id: append([]byte(nil), env.ID...)}
		}
		u.mu.Unlock()
		if c == nil {
			u.send(errorLine(env.ID, &RPCError{Code: codeInternalError, Message: "agent-harness: no agent session is open to answer this request"}))
			return
		}
		if h := testHookServerRequestRouted; h != nil {
			h(c)
		}
		c.push(line)
	case env.IsNotification():
		u.serverNotification(line, env)
	default:
		u.toTarget(line)
	}
}

// response hands the process's answer to the session that asked, with the
// session's own id.
func (u *SharedUpstream) response(line []byte, env wire.Envelope) {
	late := false
	u.mu.Lock()
	r := u.reqs[wire.IDKey(env.ID)]
	if r != nil {
		u.forgetLocked(r)
		if r.call {
			// Queued with the request forgotten, as one step for detach:
			// also after the session ended, for the judge.
			late = r.c.pushAnswer(spliced(line, []splice{{at: env.IDStart, cut: len(env.ID), with: r.id}}))
		}
	}
	u.mu.Unlock()
	if r == nil {
		u.log.Printf("WARNING: the shared upstream sent a response to a request that is not open (id %s); it was dropped", shortID(env.ID))
		return
	}
	if late {
		u.log.Printf("the shared upstream answered a tools/call of session %s after the session ended; the answer is judged, no agent gets it", r.c.name)
	}
	if r.call {
		return
	}
	if r.init {
		u.initAnswered(r, env)
		u.mu.Lock()
		stateless := u.stateless
		u.mu.Unlock()
		if env.Error != nil && stateless {
			r.c.push(errorLine(r.id, statelessInitError(r.c.name, env.Error)))
			return
		}
	}
	r.c.push(spliced(line, []splice{{at: env.IDStart, cut: len(env.ID), with: r.id}}))
}

// statelessInitError is the error a session's initialize gets when the
// shared process, already used by a SEP-2575 (2026-07-28) session that
// needs no initialize, refused it (behaviour §8.3): one process holds one
// MCP session, and the stateless one set it up. The upstream's own error
// (upstream, a JSON-RPC error object) is quoted at the end; its code is
// kept.
func statelessInitError(session string, upstream []byte) *RPCError {
	var e RPCError
	if json.Unmarshal(upstream, &e) != nil || e.Code == 0 {
		e.Code = codeInternalError
	}
	msg := e.Message
	if msg == "" {
		msg = string(upstream)
	}
	e.Message = "agent-harness: session " + session + "'s initialize was refused by the shared upstream process, " +
		"which a 2026-07-28 (stateless, SEP-2575) session already uses without initialize: with --listen all sessions " +
		"share one upstream process and one MCP session of it, so a legacy session cannot be initialised beside a stateless one. " +
		"Connect every client with protocol version 2026-07-28, or run the proxy with --upstream-per-session. " +
		"The upstream said: " + msg
	e.Data = nil
	return &e
}

// serverNotification routes a notification of the process.
func (u *SharedUpstream) serverNotification(line []byte, env wire.Envelope) {
	switch {
	case env.Method == "notifications/progress":
		v, at, ok := wire.Lookup(env.Params, "progressToken")
		u.mu.Lock()
		var r *sharedReq
		if ok {
			r = u.toks[wire.IDKey(v)]
		}
		u.mu.Unlock()
		if r == nil {
			// Its request was answered (or never existed): it belongs to
			// no session, and another session must not get it.
			if !u.warnedProgress.Swap(true) {
				u.log.Printf("WARNING: the shared upstream sent a progress notification for a request that is not open; it was dropped (later ones are dropped without a warning)")
			}
			return
		}
		r.c.push(spliced(line, []splice{{at: env.ParamsStart + at, cut: len(v), with: r.tok}}))
	case env.Method == methodCancelled:
		v, _, _ := wire.Lookup(env.Params, "requestId")
		u.mu.Lock()
		sr := u.srv[wire.IDKey(v)]
		delete(u.srv, wire.IDKey(v))
		u.mu.Unlock()
		if sr.c != nil {
			sr.c.push(line)
		}
	case strings.HasSuffix(env.Method, "/list_changed") || env.Method == "notifications/resources/updated":
		u.mu.Lock()
		conns := append([]*sharedConn(nil), u.conns...)
		u.mu.Unlock()
		for _, c := range conns {
			c.push(line)
		}
	default:
		u.toTarget(line)
	}
}

// toTarget delivers a message that belongs to no request to the session
// target chooses (dropped when none is attached).
func (u *SharedUpstream) toTarget(line []byte) {
	if c := u.target(); c != nil {
		c.push(line)
	}
}

// target is the session whose tools/call is the newest in flight, else the
// newest session still attached.
func (u *SharedUpstream) target() *sharedConn {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.targetLocked()
}

// targetLocked is target with u.mu held. A session is closed under u.mu
// too (detach), so the one it returns is open until u.mu is released.
func (u *SharedUpstream) targetLocked() *sharedConn {
	var best *sharedReq
	for _, r := range u.reqs {
		if r.call && !r.c.isClosed() && (best == nil || r.seq > best.seq) {
			best = r
		}
	}
	if best != nil {
		return best.c
	}
	for i := len(u.conns) - 1; i >= 0; i-- {
		if !u.conns[i].isClosed() {
			return u.conns[i]
		}
	}
	return nil
}

// detach forgets an ended session: the late answers of its open requests
// are dropped as not open, but for its tools/calls, whose answers the
// process may still send (it goes on after a session's end): they still
// reach the session's relay, so the pipeline judges the attempt by them
// though no agent gets them (behaviour §8.3), for at most
// Options.CallTimeout. The process's requests it did not answer get an
// error, so the process does not wait for them.
func (u *SharedUpstream) detach(c *sharedConn) {
	u.mu.Lock()
	for i, x := range u.conns {
		if x == c {
			u.conns = append(u.conns[:i:i], u.conns[i+1:]...)
			break
		}
	}
	calls := 0
	for _, r := range u.reqs {
		switch {
		case r.c != c || r.init:
		case r.call:
			calls++
		default:
			u.forgetLocked(r)
		}
	}
	c.closeLocked(calls)
	if calls > 0 {
		time.AfterFunc(u.opts.CallTimeout, func() { u.endDrain(c) })
	}
	var unanswered [][]byte
	for k, sr := range u.srv {
		if sr.c == c {
			delete(u.srv, k)
			unanswered = append(unanswered, sr.id)
		}
	}
	u.mu.Unlock()
	for _, id := range unanswered {
		u.send(errorLine(id, &RPCError{Code: codeInternalError, Message: "agent-harness: the agent session this request went to has ended"}))
	}
}

// endDrain forgets the tools/calls of ended session c that the process
// did not answer within the call timeout (the relay gave up on them
// meanwhile); c's reads then end.
func (u *SharedUpstream) endDrain(c *sharedConn) {
	u.mu.Lock()
	for _, r := range u.reqs {
		if r.c == c && !r.init {
			u.forgetLocked(r)
		}
	}
	c.mu.Lock()
	c.draining = 0
	c.cond.Broadcast()
	c.mu.Unlock()
	u.mu.Unlock()
}

// sharedConn is one session's side of a SharedUpstream (a relay Conn).
type sharedConn struct {
	u    *SharedUpstream
	name string
	// up maps the IDKey of the session's id of an open request to the
	// process's id (guarded by u.mu).
	up map[string][]byte

	mu     sync.Mutex
	cond   sync.Cond
	q      [][]byte
	closed bool
	gone   bool
	// draining counts the tools/calls still open at the process after
	// Close: their answers are still read (see detach).
	draining int
}

// ReadMessage returns the next message of the process for this session.
func (c *sharedConn) ReadMessage() ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.q) == 0 && !(c.closed && c.draining == 0) && !c.gone {
		c.cond.Wait()
	}
	if len(c.q) > 0 {
		m := c.q[0]
		c.q[0] = nil
		c.q = c.q[1:]
		return m, nil
	}
	if c.closed && c.draining == 0 {
		return nil, io.EOF
	}
	return nil, errSharedGone
}

// WriteMessage sends one of the session's messages to the process; it never
// waits for the process to read.
func (c *sharedConn) WriteMessage(msg []byte) error {
	if c.isClosed() {
		return errWriterClosed
	}
	c.u.mu.Lock()
	gone := c.u.gone
	c.u.mu.Unlock()
	if gone {
		return errSharedGone
	}
	// msg must not be retained: the shared side keeps copies only.
	return c.u.fromSession(c, append([]byte(nil), msg...))
}

// Close detaches the session; the process goes on for the others. What
// is queued for the session is dropped but for answers (of its
// tools/calls, which are judged); the answers of its tools/calls still
// open come after (see detach).
func (c *sharedConn) Close() error {
	c.u.detach(c)
	return nil
}

// closeLocked ends the session with draining of its tools/calls still
// open at the process (u.mu held, so no answer is queued meanwhile).
func (c *sharedConn) closeLocked(draining int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	c.draining = draining
	kept := c.q[:0]
	for _, m := range c.q {
		if env, err := wire.ParseEnvelope(m); err == nil && !env.HasMethod && env.ID != nil {
			kept = append(kept, m)
		}
	}
	clear(c.q[len(kept):])
	c.q = kept
	c.cond.Broadcast()
}

// pushAnswer queues the answer to one of the session's tools/calls, also
// after the session ended (then it is one fewer to wait for, and late is
// true).
func (c *sharedConn) pushAnswer(msg []byte) (late bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		if c.draining == 0 {
			return false // its wait ended (endDrain)
		}
		c.draining--
		late = true
	}
	c.q = append(c.q, msg)
	c.cond.Broadcast()
	return late
}

// push queues a message for the session; false when it has ended.
func (c *sharedConn) push(msg []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.q = append(c.q, msg)
	c.cond.Signal()
	return true
}

func (c *sharedConn) markGone() {
	c.mu.Lock()
	c.gone = true
	c.cond.Broadcast()
	c.mu.Unlock()
}

func (c *sharedConn) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// splice replaces msg[at:at+cut] with with.
type splice struct {
	at, cut int
	with    []byte
}

// spliced returns msg with the edits (at increasing, non-overlapping
// offsets once sorted) applied, as a new slice.
func spliced(msg []byte, edits []splice) []byte {
	sort.Slice(edits, func(i, j int) bool { return edits[i].at < edits[j].at })
	n := len(msg)
	for _, e := range edits {
		n += len(e.with) - e.cut
	}
	out := make([]byte, 0, n)
	prev := 0
	for _, e := range edits {
		out = append(out, msg[prev:e.at]...)
		out = append(out, e.with...)
		prev = e.at + e.cut
	}
	return append(out, msg[prev:]...)
}

// progressTokenOf returns params._meta.progressToken of a request and its
// offset in the message (nil when absent).
func progressTokenOf(env wire.Envelope) ([]byte, int) {
	meta, metaAt, ok := wire.Lookup(env.Params, "_meta")
	if !ok {
		return nil, 0
	}
	tok, tokAt, ok := wire.Lookup(meta, "progressToken")
	if !ok || !usableID(tok) {
		return nil, 0
	}
	return tok, env.ParamsStart + metaAt + tokAt
}

// clientCapabilities are the member names of initialize params.capabilities.
func clientCapabilities(params []byte) []string {
	caps, _, ok := wire.Lookup(params, "capabilities")
	if !ok {
		return nil
	}
	var names []string
	_, _ = wire.Members(caps, func(m wire.Member) bool {
		if k, ok := wire.Unquote(m.Key); ok {
			names = append(names, k)
		}
		return true
	})
	return names
}

// stringMember is the string member key of JSON object obj ("" when
// absent or not a string).
func stringMember(obj []byte, key string) string {
	v, _, ok := wire.Lookup(obj, key)
	if !ok {
		return ""
	}
	s, _ := wire.Unquote(v)
	return s
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
