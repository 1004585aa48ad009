package httpagent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cuonztech/agent-harness/internal/relay"
	"github.com/cuonztech/agent-harness/internal/wire"
)

// session is one MCP session of an HTTP client: the relay.Conn of one
// relay session.
type session struct {
	srv *Server
	id  string

	in        chan []byte   // the client's messages, in the order received
	inputEnd  chan struct{} // closed: ReadMessage returns io.EOF once in is empty
	inputOnce sync.Once
	done      chan struct{} // closed when the relay session returned

	mu      sync.Mutex
	waiting map[string]*stream // by the IDKey of the client's request id
	tokens  map[string]*stream // by the IDKey of a request's progressToken
	posts   []*stream          // POSTs waiting, oldest first
	get     *stream
	backlog [][]byte // messages for the next GET stream
	warned  bool     // the backlog overflowed once
	seq     int64    // GET event ids
	replay  []outMsg // the last GET events, for Last-Event-ID
	active  int      // requests in progress and open streams
	expiry  *time.Timer

	header atomic.Pointer[http.Header] // the agent's last POST's end-to-end headers
}

// AgentHeader returns the end-to-end headers of the agent's latest POST
// (see forwardable), for the upstream requests of this session; nil
// before the first.
func (se *session) AgentHeader() http.Header {
	if h := se.header.Load(); h != nil {
		return *h
	}
	return nil
}

// notHeaders are the headers that are not the agent's own end-to-end
// headers: hop-by-hop ones, those of each side's own HTTP exchange and
// MCP session, and Origin (validated by the proxy; a browser origin would
// make an upstream's DNS-rebinding check refuse the proxy).
var notHeaders = map[string]bool{
	"Connection": true, "Keep-Alive": true, "Proxy-Authenticate": true, "Proxy-Authorization": true,
	"Proxy-Connection": true, "Te": true, "Trailer": true, "Transfer-Encoding": true, "Upgrade": true,
	"Host": true, "Content-Length": true, "Content-Type": true, "Accept": true, "Accept-Encoding": true,
	"Mcp-Session-Id": true, "Mcp-Protocol-Version": true, "Last-Event-Id": true, "Origin": true,
}

// noteHeader keeps the end-to-end headers of one of the agent's POSTs.
func (se *session) noteHeader(h http.Header) {
	out := http.Header{}
	drop := map[string]bool{}
	for _, c := range h.Values("Connection") {
		for _, name := range strings.Split(c, ",") {
			drop[http.CanonicalHeaderKey(strings.TrimSpace(name))] = true
		}
	}
	for name, vs := range h {
		if notHeaders[name] || drop[name] {
			continue
		}
		out[name] = append([]string(nil), vs...)
	}
	se.header.Store(&out)
}

func newSession(s *Server, id string) *session {
	return &session{srv: s, id: id, in: make(chan []byte, 64), inputEnd: make(chan struct{}), done: make(chan struct{}),
		waiting: map[string]*stream{}, tokens: map[string]*stream{}}
}

// run runs the relay session and cleans up after it.
func (se *session) run() {
	defer se.srv.wg.Done()
	err := se.srv.opts.Run(se.srv.ctx, se, se.id)
	if err != nil {
		se.srv.opts.Logf("session %s ended: %v", se.label(), err)
	}
	se.srv.forget(se)
	se.endInput()
	se.srv.ended()
	close(se.done)
	se.mu.Lock()
	for _, st := range se.waiting {
		st.close()
	}
	if se.get != nil {
		se.get.close()
	}
	if se.expiry != nil {
		se.expiry.Stop()
	}
	se.mu.Unlock()
}

func (se *session) label() string {
	if se.id == "" {
		return "(without id)"
	}
	// Never the Mcp-Session-Id (it authorises use of the session): a
	// fingerprint that tells the lines of one session apart.
	sum := sha256.Sum256([]byte(se.id))
	return "#" + hex.EncodeToString(sum[:4])
}

func (se *session) endInput() { se.inputOnce.Do(func() { close(se.inputEnd) }) }

// push hands one client message to the relay; false when the session's
// input ended or the client went away.
func (se *session) push(ctx context.Context, msg []byte) bool {
	select {
	case <-se.inputEnd:
		return false
	default:
	}
	select {
	case se.in <- msg:
		return true
	case <-se.inputEnd:
		return false
	case <-ctx.Done():
		return false
	}
}

// ReadMessage implements relay.Conn.
func (se *session) ReadMessage() ([]byte, error) {
	select {
	case m := <-se.in:
		return m, nil
	default:
	}
	select {
	case m := <-se.in:
		return m, nil
	case <-se.inputEnd:
		select {
		case m := <-se.in:
			return m, nil
		default:
			return nil, io.EOF
		}
	}
}

// Close implements relay.Conn.
func (se *session) Close() error {
	se.endInput()
	return nil
}

// WriteMessage implements relay.Conn: it routes one message of the relay
// (see the package comment).
func (se *session) WriteMessage(msg []byte) error {
	return se.route(msg, nil)
}

// WriteFault implements relay.FaultConn.
func (se *session) WriteFault(msg []byte, f relay.TransportFault) error {
	return se.route(msg, &f)
}

func (se *session) route(msg []byte, f *relay.TransportFault) error {
	data := make([]byte, len(msg))
	copy(data, msg)
	for len(data) > 0 && (data[len(data)-1] == '\n' || data[len(data)-1] == '\r') {
		data = data[:len(data)-1]
	}
	env, err := wire.ParseEnvelope(data)
	se.mu.Lock()
	defer se.mu.Unlock()
	if err == nil && !env.HasMethod && usableID(env.ID) {
		if st := se.waiting[wire.IDKey(env.ID)]; st != nil {
			delete(se.waiting, wire.IDKey(env.ID))
			st.push(outMsg{data: data, final: true, fault: f})
			return nil
		}
		// Its POST went away (the client disconnected). MCP (2025-11-25
		// transports) allows an answer only on its own request's stream, not
		// on the GET stream or another POST's: it is dropped. The judge has
		// recorded it already; the relay need not know.
		se.srv.opts.Logf("WARNING: the answer to request %s was not delivered: the client closed the POST that carried it, and an answer may go on no other stream (a tool call is judged as the upstream answered it)", env.ID)
		return nil
	}
	if err == nil && env.Method == methodProgress {
		if tok, _, ok := wire.Lookup(env.Params, "progressToken"); ok && usableID(tok) {
			if st := se.tokens[wire.IDKey(tok)]; st != nil && st.push(outMsg{data: data}) {
				return nil
			}
		}
	}
	if se.get != nil {
		se.seq++
		m := outMsg{data: data, id: se.seq}
		se.remember(m)
		if se.get.push(m) {
			return nil
		}
	}
	for i := len(se.posts) - 1; i >= 0; i-- {
		if se.posts[i].push(outMsg{data: data}) {
			return nil
		}
	}
	if len(se.backlog) >= maxBacklog {
		se.backlog = se.backlog[1:]
		if !se.warned {
			se.warned = true
			se.srv.opts.Logf("WARNING: session %s: more than %d messages for the client wait for its GET stream; the oldest are dropped", se.label(), maxBacklog)
		}
	}
	se.backlog = append(se.backlog, data)
	return nil
}

// remember keeps a GET event for Last-Event-ID.
func (se *session) remember(m outMsg) {
	if len(se.replay) >= maxReplay {
		se.replay = se.replay[1:]
	}
	se.replay = append(se.replay, m)
}

// await registers a POST waiting for the answer to its request; false
// when a request with that id is open.
func (se *session) await(key, token string, st *stream) bool {
	se.mu.Lock()
	defer se.mu.Unlock()
	if _, dup := se.waiting[key]; dup {
		return false
	}
	select {
	case <-se.done:
		st.close()
	default:
	}
	se.waiting[key] = st
	if token != "" {
		se.tokens[token] = st
	}
	se.posts = append(se.posts, st)
	return true
}

func (se *session) unawait(key, token string, st *stream) {
	st.close()
	se.mu.Lock()
	if se.waiting[key] == st {
		delete(se.waiting, key)
	}
	if token != "" && se.tokens[token] == st {
		delete(se.tokens, token)
	}
	for i, p := range se.posts {
		if p == st {
			se.posts = append(se.posts[:i], se.posts[i+1:]...)
			break
		}
	}
	se.mu.Unlock()
	if testHookPostClosed != nil {
		testHookPostClosed()
	}
}

// testHookPostClosed, when set by a test, runs after a POST stopped
// waiting for its answer.
var testHookPostClosed func()

// openGet makes st the session's GET stream, with the backlog (and, after
// Last-Event-ID, the remembered events after it) queued first; false when
// one is open.
func (se *session) openGet(st *stream, after int64) bool {
	se.mu.Lock()
	defer se.mu.Unlock()
	if se.get != nil {
		return false
	}
	select {
	case <-se.done:
		st.close()
	default:
	}
	if after >= 0 {
		for _, m := range se.replay {
			if m.id > after {
				st.push(m)
			}
		}
	}
	for _, data := range se.backlog {
		se.seq++
		m := outMsg{data: data, id: se.seq}
		se.remember(m)
		st.push(m)
	}
	se.backlog = nil
	se.get = st
	return true
}

func (se *session) closeGet(st *stream) {
	st.close()
	se.mu.Lock()
	if se.get == st {
		se.get = nil
	}
	se.mu.Unlock()
	if testHookGetClosed != nil {
		testHookGetClosed()
	}
}

// testHookGetClosed, when set by a test, runs after a GET stream ended.
var testHookGetClosed func()

// busy counts a request or stream in progress: the session does not
// expire meanwhile.
func (se *session) busy() {
	se.mu.Lock()
	se.active++
	if se.expiry != nil {
		se.expiry.Stop()
	}
	se.mu.Unlock()
}

// release ends what busy counted; the session expires after
// Options.SessionIdle without a request or stream.
func (se *session) release() {
	se.mu.Lock()
	defer se.mu.Unlock()
	se.active--
	d := se.srv.opts.SessionIdle
	if se.active > 0 {
		return
	}
	if se.expiry == nil {
		se.expiry = time.AfterFunc(d, se.expire)
		return
	}
	se.expiry.Reset(d)
}

func (se *session) expire() {
	select {
	case <-se.done:
		return // ended otherwise (DELETE, the relay ended): nothing to say
	default:
	}
	se.mu.Lock()
	idle := se.active == 0
	se.mu.Unlock()
	if !idle {
		return
	}
	se.srv.forget(se) // first: once the line is out, the id is unknown
	se.endInput()
	se.srv.opts.Logf("session %s ended: neither a request nor an open stream for %s", se.label(), se.srv.opts.SessionIdle)
}
