// Package httpagent serves the agent's side of the proxy as MCP Streamable
// HTTP (behaviour §8): each MCP session of an HTTP client is one relay session
// (relay.Run with Options.Agent), so the relay and the judging behind it
// are the same as on stdio. The package frames messages only: every
// message reaches the relay with the bytes the client sent (line breaks,
// insignificant JSON whitespace, become spaces, so the message stays one
// line for a stdio upstream), and every message of the relay reaches the
// client as the relay wrote it.
//
// Routing of the relay's messages to HTTP responses:
//   - the answer to a request goes to the POST that carried the request,
//     as application/json when nothing else went to that POST first, else
//     as the last event of its text/event-stream; when that POST went away
//     (the client closed it) the answer is dropped with a warning, as MCP
//     allows an answer on no other stream (the judge recorded it before);
//   - notifications/progress go to the POST whose request carried its
//     progressToken;
//   - any other message (a notification, a request of the server such as
//     sampling or elicitation, an error without an id) goes to the GET
//     stream when one is open, else to the newest POST still waiting (its
//     response becomes an event stream), else it waits (in order, at most
//     maxBacklog messages) for the next GET stream.
//
// Cancellation: a client of MCP 2026-07-28 (its MCP-Protocol-Version
// header or SEP-2575 _meta version) that closes a request's stream before
// the answer cancels the request; the relay gets the notifications/cancelled
// the close stands for. An earlier client's disconnect is no cancellation.
//
// Sessions: an initialize without Mcp-Session-Id starts a session (a new
// relay session; with a command upstream the sessions share one process,
// behaviour §8.3) and its answer carries the new Mcp-Session-Id. Requests without Mcp-Session-Id that are not initialize
// (a stateless SEP-2575 client: server/discover, then plain requests) share
// one session without an id. DELETE ends a session; an unknown id is 404.
package httpagent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cuonztech/agent-harness/internal/relay"
	"github.com/cuonztech/agent-harness/internal/relay/sse"
	"github.com/cuonztech/agent-harness/internal/wire"
)

const (
	headerSession  = sse.HeaderSessionID
	headerVersion  = sse.HeaderProtocolVersion
	headerLastID   = "Last-Event-ID"
	maxBacklog     = 10000 // messages waiting for a GET stream
	maxReplay      = 1000  // GET events kept for Last-Event-ID
	methodInit     = "initialize"
	methodProgress = "notifications/progress"

	// DefaultMaxSessions is Options.MaxSessions when zero.
	DefaultMaxSessions = 32
	// DefaultSessionIdle is Options.SessionIdle when zero.
	DefaultSessionIdle = 10 * time.Minute
	// DefaultHeaderTimeout, DefaultBodyTimeout and DefaultKeepAliveTimeout
	// are the Options timeouts when zero.
	DefaultHeaderTimeout    = 10 * time.Second
	DefaultBodyTimeout      = 60 * time.Second
	DefaultKeepAliveTimeout = 120 * time.Second
)

// SupportedVersions are the MCP-Protocol-Version values served (the
// revisions of the MCP specification the go-sdk v1.8 and the TypeScript
// SDK speak); any other value is 400.
var SupportedVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// Options configure a Server.
type Options struct {
	// Path is the MCP endpoint (default /mcp).
	Path string
	// AllowOrigins are the Origin values served besides loopback ones
	// (compared without case and trailing slash); their host names are
	// also served as Host.
	AllowOrigins []string
	// AllowAnyHost serves every Host header (--listen-allow-remote);
	// false serves loopback names (localhost, a loopback IP address) and
	// the host names of AllowOrigins only (DNS-rebinding protection).
	AllowAnyHost bool
	// FaultLayerHTTP delivers injected faults as HTTP (relay.FaultConn):
	// rate_limit → 429 with Retry-After, server_error and chaos → 500,
	// truncated_json → a 200 whose body is cut after `{"`, timeout → the
	// connection is dropped after GhostHold without an answer.
	FaultLayerHTTP bool
	GhostHold      time.Duration
	// IdleTimeout, when positive, closes Idle once no session has been
	// open for that long (counted from New).
	IdleTimeout time.Duration
	// SessionIdle ends a session that has had neither a request nor an
	// open stream for that long (its relay session's input ends, so its
	// upstream is stopped with it); zero is DefaultSessionIdle.
	SessionIdle time.Duration
	// MaxSessions is the most sessions alive at once, the shared stateless
	// one included; zero is DefaultMaxSessions. A session is alive until
	// its relay session returned (its upstream stopped), so this also
	// bounds the upstream sessions. A request that would start one more
	// gets 503 and starts nothing.
	MaxSessions int
	// HeaderTimeout bounds reading a request's header, BodyTimeout its
	// body, KeepAliveTimeout the wait for the next request on a kept-alive
	// connection (zero: the defaults, 10 s, 60 s, 120 s), so that slow or
	// idle clients cannot hold every descriptor. Open response streams
	// are not bounded.
	HeaderTimeout, BodyTimeout, KeepAliveTimeout time.Duration
	// Run runs one relay session over conn and returns when it ended
	// (conn's ReadMessage returned io.EOF, or ctx was cancelled). id is
	// the session's Mcp-Session-Id ("" for the shared stateless session).
	Run func(ctx context.Context, conn relay.Conn, id string) error
	// Logf writes one diagnostic line (prefix added by the caller).
	Logf func(format string, args ...any)
}

// Server is the http.Handler of the agent side.
type Server struct {
	opts   Options
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	sessions map[string]*session
	shared   *session
	ending   bool
	live     int  // sessions whose relay session has not returned
	full     bool // a 503 for --max-sessions was logged since the last session ended
	wg       sync.WaitGroup

	idle      chan struct{}
	idleOnce  sync.Once
	idleTimer *time.Timer
}

// New returns a Server; its idle clock (Options.IdleTimeout) starts now.
func New(opts Options) *Server {
	if opts.Path == "" {
		opts.Path = "/mcp"
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.SessionIdle <= 0 {
		opts.SessionIdle = DefaultSessionIdle
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	for _, d := range []struct {
		p   *time.Duration
		def time.Duration
	}{{&opts.HeaderTimeout, DefaultHeaderTimeout}, {&opts.BodyTimeout, DefaultBodyTimeout}, {&opts.KeepAliveTimeout, DefaultKeepAliveTimeout}} {
		if *d.p <= 0 {
			*d.p = d.def
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{opts: opts, ctx: ctx, cancel: cancel, sessions: map[string]*session{}, idle: make(chan struct{})}
	if opts.IdleTimeout > 0 {
		s.idleTimer = time.AfterFunc(opts.IdleTimeout, s.checkIdle)
	}
	return s
}

// HTTPServer returns an http.Server for s with the header and keep-alive
// timeouts of Options (the body's is set per request). It has no
// ReadTimeout or WriteTimeout: those would also end the long-lived GET and
// POST event streams.
func (s *Server) HTTPServer(errorLog *log.Logger) *http.Server {
	return &http.Server{Handler: s, ReadHeaderTimeout: s.opts.HeaderTimeout, IdleTimeout: s.opts.KeepAliveTimeout, ErrorLog: errorLog}
}

// Idle is closed once no session has been open for Options.IdleTimeout.
func (s *Server) Idle() <-chan struct{} { return s.idle }

func (s *Server) checkIdle() {
	s.mu.Lock()
	open := len(s.sessions) > 0 || s.shared != nil
	s.mu.Unlock()
	if !open {
		s.idleOnce.Do(func() { close(s.idle) })
	}
}

// noteSessionsLocked restarts the idle clock when the last session ended
// and stops it while one is open.
func (s *Server) noteSessionsLocked() {
	if s.idleTimer == nil {
		return
	}
	if len(s.sessions) > 0 || s.shared != nil {
		s.idleTimer.Stop()
		return
	}
	s.idleTimer.Reset(s.opts.IdleTimeout)
}

// Shutdown ends every session (their input ends; open requests get up to
// the relay's grace to be answered) and waits for their relay sessions to
// return, at most until ctx is done. Later requests get 503.
func (s *Server) Shutdown(ctx context.Context) {
	s.mu.Lock()
	s.ending = true
	all := make([]*session, 0, len(s.sessions)+1)
	for _, se := range s.sessions {
		all = append(all, se)
	}
	if s.shared != nil {
		all = append(all, s.shared)
	}
	s.mu.Unlock()
	for _, se := range all {
		se.endInput()
	}
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		s.cancel()
		<-done
	}
}

// ServeHTTP implements the Streamable HTTP endpoint.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Options.BodyTimeout bounds the body from here, also a body no handler
	// reads: net/http drains it after an early answer (a 404, a 403) before
	// the connection is reused. A POST lifts it once the body is read, the
	// GET stream before it starts.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.opts.BodyTimeout))
	if r.URL.Path != s.opts.Path {
		http.NotFound(w, r)
		return
	}
	if !s.hostAllowed(r.Host) {
		// The go-sdk's handler answers the same (DNS-rebinding protection).
		s.opts.Logf("refused a request for Host %q (403): not a loopback name and not the host of a --listen-allow-origin origin (--listen-allow-remote serves any)", r.Host)
		http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", r.Host), http.StatusForbidden)
		return
	}
	if !s.originAllowed(r.Header.Get("Origin")) {
		s.opts.Logf("refused a request from Origin %q (403): not a loopback origin and not given by --listen-allow-origin", r.Header.Get("Origin"))
		http.Error(w, "Forbidden: origin not allowed", http.StatusForbidden)
		return
	}
	if v := r.Header.Get(headerVersion); v != "" && !supported(v) {
		http.Error(w, "Bad Request: unsupported MCP-Protocol-Version "+strconv.Quote(v), http.StatusBadRequest)
		return
	}
	switch r.Method {
	case http.MethodPost:
		s.post(w, r)
	case http.MethodGet:
		s.get(w, r)
	case http.MethodDelete:
		s.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

func supported(v string) bool {
	for _, x := range SupportedVersions {
		if v == x {
			return true
		}
	}
	return false
}

// originAllowed: no Origin, a loopback origin (http://localhost,
// 127.0.0.1 or [::1], any port) or one of Options.AllowOrigins.
func (s *Server) originAllowed(origin string) bool {
	if origin == "" {
		return true
	}
	norm := strings.TrimRight(strings.ToLower(origin), "/")
	for _, a := range s.opts.AllowOrigins {
		if strings.TrimRight(strings.ToLower(a), "/") == norm {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return false
	}
	switch u.Hostname() {
	case "localhost", "127.0.0.1", "::1":
	default:
		return false
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return false
		}
	}
	return true
}

// hostAllowed: any Host with Options.AllowAnyHost; else localhost, a
// loopback IP address or the host name of one of Options.AllowOrigins,
// with any port (compared without case). A page of a rebinding DNS name
// reaches the proxy with that name as Host and is refused.
func (s *Server) hostAllowed(host string) bool {
	if s.opts.AllowAnyHost {
		return true
	}
	name := hostName(host)
	if name == "" {
		return false
	}
	if strings.EqualFold(name, "localhost") {
		return true
	}
	if a, err := netip.ParseAddr(name); err == nil && a.Zone() == "" && a.IsLoopback() {
		return true
	}
	for _, o := range s.opts.AllowOrigins {
		if u, err := url.Parse(o); err == nil && u.Hostname() != "" && strings.EqualFold(u.Hostname(), name) {
			return true
		}
	}
	return false
}

// hostName is the host of a Host header without its port and brackets.
func hostName(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		return host[1 : len(host)-1]
	}
	return host
}

// lookup finds the session of a request: nil and a status to answer with
// when there is none.
func (s *Server) lookup(r *http.Request) (*session, int) {
	id := r.Header.Get(headerSession)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ending {
		return nil, http.StatusServiceUnavailable
	}
	if id == "" {
		return nil, http.StatusBadRequest
	}
	se := s.sessions[id]
	if se == nil {
		return nil, http.StatusNotFound
	}
	return se, 0
}

// start creates a session and its relay session; id "" is the shared
// stateless one.
func (s *Server) start(withID bool) (*session, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ending {
		return nil, http.StatusServiceUnavailable
	}
	if !withID && s.shared != nil {
		return s.shared, 0
	}
	if s.live >= s.opts.MaxSessions {
		if !s.full {
			s.full = true
			s.opts.Logf("refused a new session (503): %d sessions are open, the most --max-sessions allows; further refusals are not logged until one ends", s.live)
		}
		return nil, http.StatusServiceUnavailable
	}
	s.live++
	se := newSession(s, "")
	if withID {
		se.id = newSessionID()
		s.sessions[se.id] = se
	} else {
		s.shared = se
	}
	s.noteSessionsLocked()
	s.wg.Add(1)
	go se.run()
	return se, 0
}

// ended counts a session whose relay session returned: its slot is free.
func (s *Server) ended() {
	s.mu.Lock()
	s.live--
	s.full = false
	s.mu.Unlock()
}

// forget removes an ended session: later requests naming it get 404.
func (s *Server) forget(se *session) {
	s.mu.Lock()
	if se.id == "" {
		if s.shared == se {
			s.shared = nil
		}
	} else if s.sessions[se.id] == se {
		delete(s.sessions, se.id)
	}
	s.noteSessionsLocked()
	s.mu.Unlock()
}

func (s *Server) isEnding() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ending
}

func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (s *Server) post(w http.ResponseWriter, r *http.Request) {
	if testHookPostDone != nil {
		defer testHookPostDone()
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct)), "application/json") {
		http.Error(w, "Unsupported Media Type: Content-Type must be application/json", http.StatusUnsupportedMediaType)
		return
	}
	body, err := s.readBody(w, r)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			s.opts.Logf("refused a request whose body did not arrive within %s (408)", s.opts.BodyTimeout)
			w.Header().Set("Connection", "close")
			http.Error(w, fmt.Sprintf("Request Timeout: the body did not arrive within %s", s.opts.BodyTimeout), http.StatusRequestTimeout)
			return
		}
		http.Error(w, "Bad Request: "+err.Error(), http.StatusBadRequest)
		return
	}
	env, err := wire.ParseEnvelope(body)
	if err != nil {
		msg := "Parse error: " + err.Error()
		code := -32700
		if errors.Is(err, wire.ErrNotObject) {
			msg, code = "agent-harness: a message must be one JSON-RPC object (batches are not supported)", -32600
		}
		writeJSONError(w, http.StatusBadRequest, nil, code, msg)
		return
	}
	blankLineBreaks(body)
	var se *session
	status := 0
	switch {
	case r.Header.Get(headerSession) != "":
		se, status = s.lookup(r)
	case env.IsRequest() && env.Method == methodInit:
		se, status = s.start(true)
	default:
		se, status = s.start(false)
	}
	if se == nil {
		msg := http.StatusText(status)
		if status == http.StatusServiceUnavailable && !s.isEnding() {
			msg = fmt.Sprintf("Service Unavailable: the proxy serves at most %d sessions at once (--max-sessions); end one with DELETE or let one expire", s.opts.MaxSessions)
		}
		http.Error(w, msg, status)
		return
	}
	se.busy()
	defer se.release()
	se.noteHeader(r.Header)
	if se.id != "" {
		w.Header().Set(headerSession, se.id)
	}
	if !env.IsRequest() || !usableID(env.ID) {
		if !se.push(r.Context(), body) {
			http.Error(w, "Not Found: the session ended", http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	st := newStream()
	key := wire.IDKey(env.ID)
	token := progressToken(env.Params)
	if !se.await(key, token, st) {
		writeJSONError(w, http.StatusOK, env.ID, -32600, "agent-harness: duplicate request id (an earlier request with this id is still open)")
		return
	}
	defer se.unawait(key, token, st)
	if !se.push(r.Context(), body) {
		http.Error(w, "Not Found: the session ended", http.StatusNotFound)
		return
	}
	if !s.respond(w, r, se, st, env.ID) && streamCancels(r.Header, env.Params) {
		// MCP 2026-07-28: closing a request's stream is its cancellation
		// (behaviour §2.6); the relay handles it as the agent's
		// notifications/cancelled.
		se.push(s.ctx, cancelMessage(env.ID))
	}
}

// testHookPostDone, when set by a test, runs when a POST's handler ends.
var testHookPostDone func()

// streamCancels reports whether a client that closes a request's stream
// cancels the request: from MCP 2026-07-28 on (its MCP-Protocol-Version
// header, else its SEP-2575 _meta version). Earlier revisions say a
// disconnect is no cancellation.
func streamCancels(h http.Header, params []byte) bool {
	v := h.Get(headerVersion)
	if v == "" && len(params) > 0 && params[0] == '{' {
		if meta, _, ok := wire.Lookup(params, "_meta"); ok && len(meta) > 0 && meta[0] == '{' {
			raw, _, _ := wire.Lookup(meta, "io.modelcontextprotocol/protocolVersion")
			v, _ = wire.Unquote(raw)
		}
	}
	return len(v) == len("2026-07-28") && v >= "2026-07-28"
}

// cancelMessage is the notifications/cancelled a closed stream stands for.
func cancelMessage(id []byte) []byte {
	m := append([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`), id...)
	return append(m, `,"reason":"the client closed the request's stream"}}`...)
}

// readBody reads a request's body within Options.BodyTimeout (set in
// ServeHTTP), then lifts the deadline: the connection stays open for the
// answer, which may be a long event stream. After a timeout the deadline
// stays, so the server's drain of the unread body fails at once and the
// connection closes.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	if err == nil {
		_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	}
	return b, err
}

// respond writes what the relay sends to a POST's stream until its answer;
// false when the client closed the stream before it (the request's
// context ended, or a write failed).
func (s *Server) respond(w http.ResponseWriter, r *http.Request, se *session, st *stream, id []byte) bool {
	streaming := false
	var buf []byte
	for {
		ms, ok := st.next(r.Context())
		if !ok {
			if r.Context().Err() != nil {
				return false
			}
			if !streaming {
				writeJSONError(w, http.StatusOK, id, -32603, "agent-harness: the session ended before the request was answered")
			}
			return true
		}
		for _, m := range ms {
			if m.fault != nil && s.opts.FaultLayerHTTP {
				s.deliverFault(w, r, m, streaming)
				return true
			}
			if m.final && !streaming {
				h := w.Header()
				h.Set("Content-Type", "application/json")
				h.Set("Content-Length", strconv.Itoa(len(m.data)))
				w.WriteHeader(http.StatusOK)
				_, _ = w.Write(m.data)
				return true
			}
			if !streaming {
				startSSE(w)
				streaming = true
			}
			buf = sse.AppendEvent(buf[:0], 0, m.data)
			if _, err := w.Write(buf); err != nil {
				return m.final
			}
			if m.final {
				flush(w)
				return true
			}
		}
		flush(w)
	}
}

// deliverFault delivers an injected answer as HTTP (--fault-layer http).
// Once the response is an event stream (messages went before the answer)
// a status can no longer be sent: a 429 or 500 is then delivered as the
// tool-layer answer, a cut body and a dropped connection as such.
func (s *Server) deliverFault(w http.ResponseWriter, r *http.Request, m outMsg, streaming bool) {
	f := m.fault
	switch f.Kind {
	case "rate_limit", "server_error", "chaos":
		if streaming {
			_, _ = w.Write(sse.AppendEvent(nil, 0, m.data))
			flush(w)
			return
		}
		code := http.StatusInternalServerError
		if f.Kind == "rate_limit" {
			code = http.StatusTooManyRequests
			secs := int64(math.Ceil(f.RetryAfter.Seconds()))
			w.Header().Set("Retry-After", strconv.FormatInt(max(secs, 0), 10))
		}
		http.Error(w, http.StatusText(code), code)
	case "truncated_json":
		if streaming {
			_, _ = w.Write([]byte("event: message\ndata: {\""))
		} else {
			h := w.Header()
			h.Set("Content-Type", "application/json")
			h.Set("Content-Length", strconv.Itoa(len(m.data)))
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(`{"`))
		}
		flush(w)
		panic(http.ErrAbortHandler) // the connection closes mid-body
	case "timeout":
		if s.opts.GhostHold > 0 {
			t := time.NewTimer(s.opts.GhostHold)
			select {
			case <-t.C:
			case <-r.Context().Done():
			}
			t.Stop()
		}
		panic(http.ErrAbortHandler) // dropped without an answer
	default:
		// A plugin's fault kind has no HTTP form: the tool-layer answer.
		if streaming {
			_, _ = w.Write(sse.AppendEvent(nil, 0, m.data))
			flush(w)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(m.data)
	}
}

func startSSE(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}

func flush(w http.ResponseWriter) {
	_ = http.NewResponseController(w).Flush()
}

func (s *Server) get(w http.ResponseWriter, r *http.Request) {
	if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		http.Error(w, "Not Acceptable: GET needs Accept: text/event-stream", http.StatusNotAcceptable)
		return
	}
	if r.Header.Get(headerSession) == "" {
		// The shared stateless session has no stream of its own.
		w.Header().Set("Allow", "POST")
		http.Error(w, "Method Not Allowed: GET needs an Mcp-Session-Id", http.StatusMethodNotAllowed)
		return
	}
	if r.ContentLength != 0 {
		// Its drain stays bounded by the body deadline; the stream may not be.
		http.Error(w, "Bad Request: a GET has no body", http.StatusBadRequest)
		return
	}
	se, status := s.lookup(r)
	if se == nil {
		http.Error(w, http.StatusText(status), status)
		return
	}
	var after int64 = -1
	if v := r.Header.Get(headerLastID); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			http.Error(w, "Bad Request: Last-Event-ID is not an event id of this stream", http.StatusBadRequest)
			return
		}
		after = n
	}
	st := newStream()
	if !se.openGet(st, after) {
		http.Error(w, "Conflict: the session already has a GET stream", http.StatusConflict)
		return
	}
	se.busy()
	defer se.release()
	defer se.closeGet(st)
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{}) // an open stream has no time limit
	startSSE(w)
	flush(w)
	var buf []byte
	for {
		ms, ok := st.next(r.Context())
		if !ok {
			return
		}
		buf = buf[:0]
		for _, m := range ms {
			buf = sse.AppendEvent(buf, m.id, m.data)
		}
		if _, err := w.Write(buf); err != nil {
			return
		}
		flush(w)
	}
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request) {
	se, status := s.lookup(r)
	if se == nil {
		http.Error(w, http.StatusText(status), status)
		return
	}
	s.forget(se)
	se.endInput()
	w.WriteHeader(http.StatusOK)
}

// writeJSONError answers with one JSON-RPC error object.
func writeJSONError(w http.ResponseWriter, status int, id []byte, code int, msg string) {
	if id == nil {
		id = []byte("null")
	}
	// JSON-encoded, not strconv.Quote: Go's \xff and \U000e0001 escapes
	// are not JSON, and a parse error's text may hold the agent's bytes.
	m, _ := json.Marshal(msg) // a string always encodes (invalid UTF-8 as U+FFFD)
	b := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`, id, code, m)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// blankLineBreaks turns the line breaks of a valid JSON text into spaces: outside
// strings they are insignificant whitespace, inside strings they cannot
// occur unescaped. The message then stays one line for a stdio upstream.
func blankLineBreaks(b []byte) {
	for i, c := range b {
		if c == '\n' || c == '\r' {
			b[i] = ' '
		}
	}
}

// usableID: a string or number id (not null).
func usableID(id []byte) bool {
	if len(id) == 0 {
		return false
	}
	c := id[0]
	return c == '"' || c == '-' || (c >= '0' && c <= '9')
}

// progressToken returns the IDKey of params._meta.progressToken, "" when
// none.
func progressToken(params []byte) string {
	meta, _, ok := wire.Lookup(params, "_meta")
	if !ok {
		return ""
	}
	tok, _, ok := wire.Lookup(meta, "progressToken")
	if !ok || !usableID(tok) {
		return ""
	}
	return wire.IDKey(tok)
}
