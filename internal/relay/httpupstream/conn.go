// Package httpupstream is the upstream side of the proxy as an MCP
// Streamable HTTP client (behaviour §8): a relay.Conn that POSTs each message
// of the relay to the upstream's URL and hands every message of the
// answers (application/json or text/event-stream) and of the GET stream
// back to the relay, bytes unchanged (line breaks become spaces so a
// message stays one line).
//
// HTTP errors become answers the relay judges (the relay sees messages
// only):
//   - 400, 401, 403, 405, 415, 429, and 404 to a request that carried no
//     session id, prove the request never reached a tool — unless the
//     body holds a response to the call that is not an error, or cannot
//     be read to its end: a tools/call gets an isError result naming the
//     status, marked with relay.NotExecutedMark (judged not executed),
//     another request a JSON-RPC error;
//   - any other status (also a redirect: redirects are never followed), a
//     connection that fails before the answer, a body shorter than its
//     Content-Length, an answer that is not one JSON-RPC message (a
//     batch, text), a stream that ends without the answer and cannot be
//     resumed: the outcome is unknown, a tools/call gets an isError result
//     marked unknown, another request a JSON-RPC error;
//   - 404 to a request that carried the session id: the upstream session
//     expired. It is reported once; the proxy does not re-initialise: the
//     pending request gets an answer of unknown outcome, every later
//     request an answer saying the session expired without being sent.
//
// An event stream that ends after an event id without the answer (the
// 2025-11-25 polling style, or a dropped connection) is resumed with GET
// and Last-Event-ID until the answer arrives or Options.Timeout passes.
//
// Each POST carries the request metadata headers of its own body
// (MCP-Protocol-Version, and from 2026-07-28 Mcp-Method, Mcp-Name,
// Mcp-Param-*; setMirrored), never an agent's copies of another message's.
//
// A request is sent once: net/http never re-sends it by itself
// (newRequest), and the Conn never does.
package httpupstream

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cuonztech/agent-harness/internal/relay/sse"
	"github.com/cuonztech/agent-harness/internal/wire"
)

const (
	headerSession = sse.HeaderSessionID
	headerVersion = sse.HeaderProtocolVersion
	// closeWait bounds the DELETE that ends the upstream session.
	closeWait = 2 * time.Second
	// resumeDelay is the wait before a stream is resumed when the upstream
	// sent no retry field; minResumeDelay bounds a retry field from below,
	// so an upstream that closes every stream at once costs at most one
	// GET per minResumeDelay.
	resumeDelay    = time.Second
	minResumeDelay = 100 * time.Millisecond
	// maxLocation bounds the Location header quoted in an answer.
	maxLocation = 200
)

// Options configure a Conn.
type Options struct {
	// URL is the upstream's MCP endpoint.
	URL string
	// Header is sent with every request (--upstream-header,
	// --upstream-header-env); never logged.
	Header http.Header
	// Client is the HTTP client; nil is a client without a timeout (the
	// relay's call timeout bounds each request). Redirects are never
	// followed, whatever the client's CheckRedirect (behaviour §8.2).
	Client *http.Client
	// Timeout bounds the resumption of a request's event stream
	// (--upstream-timeout, from the POST); 0 is no bound but Close.
	Timeout time.Duration
	// Logf writes one diagnostic line.
	Logf func(format string, args ...any)
	// OnExpired is called once when the upstream session expired.
	OnExpired func()
	// AgentHeader, when set, returns the agent's end-to-end headers
	// (an HTTP agent side): they are sent with every request, before
	// Header (which wins), except the mirrored ones (mirrored).
	AgentHeader func() http.Header
}

// Conn is one upstream MCP session over Streamable HTTP.
type Conn struct {
	opts   Options
	ctx    context.Context
	cancel context.CancelFunc

	inMu   sync.Mutex
	in     [][]byte
	inWake chan struct{}
	closed bool

	mu        sync.Mutex
	session   string
	version   string
	gate      chan struct{} // closed when the initialize in flight has its answer's headers
	getOpened bool
	expired   bool
	params    map[string][]paramHeader // x-mcp-header annotations by tool name (noteTools)
	wg        sync.WaitGroup

	warnedMsg atomic.Bool // a message that is not one JSON-RPC object was logged
}

// New returns a Conn; nothing is sent before the relay's first message.
func New(opts Options) *Conn {
	cl := http.Client{}
	if opts.Client != nil {
		cl = *opts.Client
	}
	// Never follow a redirect: the request was received (a tools/call may
	// have executed), a re-send to the target would execute it again
	// behind the judge's back, and the configured headers (secrets) would
	// reach a host the user never named.
	cl.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	opts.Client = &cl
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	open := make(chan struct{})
	close(open)
	return &Conn{opts: opts, ctx: ctx, cancel: cancel, inWake: make(chan struct{}, 1), gate: open}
}

// SetAgentHeader sets Options.AgentHeader (before the first message).
func (c *Conn) SetAgentHeader(f func() http.Header) { c.opts.AgentHeader = f }

// ReadMessage implements relay.Conn: the upstream's next message.
func (c *Conn) ReadMessage() ([]byte, error) {
	for {
		c.inMu.Lock()
		if len(c.in) > 0 {
			m := c.in[0]
			c.in[0] = nil
			c.in = c.in[1:]
			c.inMu.Unlock()
			return m, nil
		}
		closed := c.closed
		c.inMu.Unlock()
		if closed {
			return nil, io.EOF
		}
		<-c.inWake
	}
}

// deliver queues one message for the relay.
func (c *Conn) deliver(msg []byte) {
	for i, b := range msg {
		if b == '\n' || b == '\r' {
			msg[i] = ' '
		}
	}
	c.inMu.Lock()
	if !c.closed {
		c.in = append(c.in, msg)
	}
	c.inMu.Unlock()
	select {
	case c.inWake <- struct{}{}:
	default:
	}
}

// Close implements relay.Conn: it ends the upstream session (DELETE,
// bounded), stops every request and ends ReadMessage.
func (c *Conn) Close() error {
	c.mu.Lock()
	sid := c.session
	c.mu.Unlock()
	if sid != "" {
		ctx, cancel := context.WithTimeout(context.Background(), closeWait)
		req, err := newRequest(ctx, http.MethodDelete, c.opts.URL, nil)
		if err == nil {
			c.setHeaders(req)
			if resp, err := c.opts.Client.Do(req); err == nil {
				resp.Body.Close()
			}
		}
		cancel()
	}
	c.cancel()
	c.wg.Wait()
	c.inMu.Lock()
	c.closed = true
	c.inMu.Unlock()
	select {
	case c.inWake <- struct{}{}:
	default:
	}
	return nil
}

// WriteMessage implements relay.Conn: the message is POSTed on its own
// goroutine (an answer may take long); messages after an initialize wait
// until its answer's headers (the session id) arrived, and messages after
// notifications/initialized until the upstream accepted it, so the
// lifecycle's order holds on the wire (MCP: the client's requests follow
// its initialized notification) however the goroutines are scheduled.
func (c *Conn) WriteMessage(msg []byte) error {
	body := bytes.TrimRight(msg, "\r\n")
	body = append([]byte(nil), body...)
	env, _ := wire.ParseEnvelope(body)
	c.mu.Lock()
	wait := c.gate
	var done chan struct{}
	if (env.IsRequest() && env.Method == "initialize") || (env.IsNotification() && env.Method == "notifications/initialized") {
		done = make(chan struct{})
		c.gate = done
	}
	c.mu.Unlock()
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		select {
		case <-wait:
		case <-c.ctx.Done():
			return
		}
		c.post(body, env, done)
	}()
	return nil
}

func (c *Conn) setHeaders(req *http.Request) {
	if c.opts.AgentHeader != nil {
		for name, vs := range c.opts.AgentHeader() {
			if mirrored(name) {
				// Another POST's copy of its own body (behaviour §8.1):
				// post derives this message's from its body.
				continue
			}
			for _, v := range vs {
				req.Header.Add(name, v)
			}
		}
	}
	for name := range c.opts.Header {
		req.Header.Del(name)
	}
	for name, vs := range c.opts.Header {
		for _, v := range vs {
			req.Header.Add(name, v)
		}
	}
	c.mu.Lock()
	if c.session != "" {
		req.Header.Set(headerSession, c.session)
	}
	if c.version != "" {
		req.Header.Set(headerVersion, c.version)
	}
	c.mu.Unlock()
}

// post sends one message and hands the answer's messages to the relay.
// done, when not nil, is closed once the headers are in (an initialize).
func (c *Conn) post(body []byte, env wire.Envelope, done chan struct{}) {
	if done != nil {
		defer func() {
			select {
			case <-done:
			default:
				close(done)
			}
		}()
	}
	isReq := env.IsRequest()
	c.mu.Lock()
	expired := c.expired
	c.mu.Unlock()
	if expired {
		if isReq {
			c.answer(env, true, "agent-harness: the upstream MCP session expired earlier (HTTP 404); this request was not sent")
		}
		return
	}
	started := time.Now()
	req, err := newRequest(c.ctx, http.MethodPost, c.opts.URL, body)
	if err != nil {
		if isReq {
			c.answer(env, true, "agent-harness: cannot send to the upstream: "+err.Error())
		}
		return
	}
	c.setHeaders(req)
	c.mu.Lock()
	negotiated := c.version
	c.mu.Unlock()
	if setMirrored(req.Header, env, negotiated) && env.Method == "tools/call" {
		if raw, _, ok := wire.Lookup(env.Params, "name"); ok {
			if name, ok := wire.Unquote(raw); ok {
				c.mu.Lock()
				hs := c.params[name]
				c.mu.Unlock()
				setParams(req.Header, env, hs)
			}
		}
	}
	// Whether this very request carried a session id decides what a 404
	// means (behaviour §8.2), not the session as it is now.
	sentSession := req.Header.Get(headerSession) != ""
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.opts.Client.Do(req)
	if err != nil {
		if c.ctx.Err() == nil && isReq {
			c.answer(env, false, "agent-harness: the HTTP request to the upstream failed before an answer: "+err.Error()+"; the outcome is unknown")
		}
		return
	}
	defer resp.Body.Close()
	if env.Method == "initialize" && resp.StatusCode == http.StatusOK {
		c.mu.Lock()
		if sid := resp.Header.Get(headerSession); sid != "" {
			c.session = sid
		}
		c.mu.Unlock()
	}
	if done != nil {
		close(done)
	}
	switch {
	case resp.StatusCode == http.StatusNotFound && sentSession:
		c.mu.Lock()
		first := !c.expired
		c.expired = true
		c.mu.Unlock()
		if first {
			c.opts.Logf("the upstream MCP session expired (HTTP 404); agent-harness does not re-initialise: the pending request and every later one get an error")
			if c.opts.OnExpired != nil {
				c.opts.OnExpired()
			}
		}
		if isReq {
			c.answer(env, false, "agent-harness: the upstream MCP session expired (HTTP 404) while this request was sent; the outcome is unknown")
		}
		return
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		// A redirect is never followed (New): the server received the
		// request, so what it did is unknown.
		loc := location(resp)
		c.opts.Logf("WARNING: the upstream answered HTTP %d (Location: %s) to a %s; agent-harness does not follow redirects", resp.StatusCode, loc, messageKind(env))
		if isReq {
			c.answer(env, false, fmt.Sprintf("agent-harness: the upstream answered HTTP %d %s (Location: %s); agent-harness does not follow redirects; the outcome is unknown",
				resp.StatusCode, http.StatusText(resp.StatusCode), loc))
		}
		return
	case resp.StatusCode >= 300:
		if !isReq {
			c.opts.Logf("WARNING: the upstream answered HTTP %d to a %s", resp.StatusCode, messageKind(env))
			return
		}
		text := fmt.Sprintf("agent-harness: the upstream answered HTTP %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
		if ra := resp.Header.Get("Retry-After"); ra != "" && resp.StatusCode == http.StatusTooManyRequests {
			text += " (Retry-After: " + short(ra) + ")"
		}
		switch {
		case !notExecuted(resp.StatusCode):
			c.answer(env, false, text+"; the outcome is unknown")
		case env.Method == "tools/call":
			// The status proves no tool ran only when the body does not
			// answer the call (behaviour §8.2).
			if why := c.statusContradicted(resp, env, started); why != "" {
				c.opts.Logf("WARNING: the upstream answered HTTP %d to a %s %s; the outcome is unknown", resp.StatusCode, messageKind(env), why)
				c.answer(env, false, text+" "+why+"; the outcome is unknown")
				return
			}
			c.answer(env, true, text+"; the request did not reach a tool")
		default:
			c.answer(env, true, text+"; the request did not reach a tool")
		}
		return
	}
	ct := strings.ToLower(resp.Header.Get("Content-Type"))
	got := false
	var why string
	switch {
	case strings.HasPrefix(ct, "text/event-stream"):
		var st streamState
		got, err = c.readStream(resp.Body, env, &st)
		if st.unusable != "" {
			why = st.unusable
		} else if isReq && !got && st.lastID != "" && c.ctx.Err() == nil {
			got, why = c.resume(env, &st, started)
		} else if err != nil {
			why = "the answer broke off: " + err.Error()
		}
	case strings.HasPrefix(ct, "application/json"):
		var data []byte
		data, err = io.ReadAll(resp.Body)
		switch {
		case err != nil:
			// Also a body shorter than its Content-Length
			// (io.ErrUnexpectedEOF): never delivered, unknown at once.
			why = "the answer broke off: " + err.Error()
		case len(bytes.TrimSpace(data)) > 0:
			if !c.oneMessage(data, env) {
				why = "the answer is " + notOneMessage(data) + ", not one JSON-RPC message; agent-harness does not forward it"
				break
			}
			got = isReq && answers(data, env.ID)
			if got && env.Method == "initialize" {
				c.noteVersion(data)
			}
			if got && env.Method == "tools/list" {
				c.noteTools(data)
			}
			c.deliver(data)
		}
	}
	if isReq && !got && c.ctx.Err() == nil {
		if why == "" {
			why = "the answer carried no response"
		}
		c.answer(env, false, "agent-harness: the upstream's HTTP answer ended without the response ("+why+"); the outcome is unknown")
	}
	if env.Method == "initialize" && got {
		c.openGet()
	}
}

// streamState is what a request's event stream told so far: the last
// event id (for Last-Event-ID) and the retry field.
type streamState struct {
	lastID string
	retry  time.Duration
	hasRet bool
	// unusable, when set, says why the stream ended the request's wait:
	// an event that is not one JSON-RPC message holds a response to it.
	unusable string
}

// readStream reads one event stream of the request env (its POST's, or a
// resumption of it), delivers its messages and reports whether the answer
// was among them.
func (c *Conn) readStream(body io.Reader, env wire.Envelope, st *streamState) (got bool, err error) {
	isReq := env.IsRequest()
	err = sse.ReadEventsRetry(bufio.NewReaderSize(body, 64<<10), func(id, typ string, data []byte) bool {
		if id != "" {
			st.lastID = id
		}
		if typ == "message" && len(bytes.TrimSpace(data)) > 0 {
			if !c.oneMessage(data, env) {
				if isReq && responseIn(data, env.ID) {
					// The call was answered in a form that cannot be
					// forwarded: unknown at once, no resumption.
					st.unusable = "an event of the answer is " + notOneMessage(data) + " holding the response, not one JSON-RPC message; agent-harness does not forward it"
					return false
				}
				return true
			}
			if isReq && answers(data, env.ID) {
				got = true
				if env.Method == "initialize" {
					c.noteVersion(data)
				}
				if env.Method == "tools/list" {
					c.noteTools(data)
				}
			}
			c.deliver(data)
		}
		return true
	}, func(ms int64) {
		st.retry, st.hasRet = time.Duration(ms)*time.Millisecond, true
	})
	return got, err
}

// resume re-opens the request's event stream with GET and Last-Event-ID
// (MCP 2025-11-25, resumability) until its answer arrives, the upstream
// refuses, or Options.Timeout from the POST passed. why says what ended it
// without the answer.
func (c *Conn) resume(env wire.Envelope, st *streamState, started time.Time) (got bool, why string) {
	var deadline <-chan time.Time
	if c.opts.Timeout > 0 {
		t := time.NewTimer(c.opts.Timeout - time.Since(started))
		defer t.Stop()
		deadline = t.C
	}
	for st.lastID != "" {
		wait := resumeDelay
		if st.hasRet {
			wait = max(st.retry, minResumeDelay)
		}
		timer := time.NewTimer(wait)
		select {
		case <-timer.C:
		case <-deadline:
			timer.Stop()
			return false, "the event stream ended after event " + short(st.lastID) + " and did not resume within the upstream timeout"
		case <-c.ctx.Done():
			timer.Stop()
			return false, "the proxy stopped"
		}
		ctx, cancel := context.WithCancel(c.ctx)
		stop := make(chan struct{})
		go func() {
			select {
			case <-deadline:
				cancel()
			case <-stop:
			}
		}()
		got, why = c.resumeOnce(ctx, env, st)
		close(stop)
		timedOut := ctx.Err() != nil && c.ctx.Err() == nil
		cancel()
		if got {
			return true, ""
		}
		if timedOut {
			return false, "the event stream ended after event " + short(st.lastID) + " and did not resume within the upstream timeout"
		}
		if why != "" {
			return false, why
		}
	}
	return false, "the event stream ended without an event id to resume from"
}

// resumeOnce is one GET with Last-Event-ID; why is set when the stream
// cannot be resumed again.
func (c *Conn) resumeOnce(ctx context.Context, env wire.Envelope, st *streamState) (got bool, why string) {
	req, err := newRequest(ctx, http.MethodGet, c.opts.URL, nil)
	if err != nil {
		return false, "cannot resume the event stream: " + err.Error()
	}
	c.setHeaders(req)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Last-Event-ID", st.lastID)
	resp, err := c.opts.Client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return false, ""
		}
		return false, "resuming the event stream failed: " + err.Error()
	}
	defer resp.Body.Close()
	ct := strings.ToLower(resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/event-stream") {
		loc := ""
		if resp.StatusCode >= 300 && resp.StatusCode < 400 {
			loc = " (Location: " + location(resp) + ")"
		}
		return false, fmt.Sprintf("the upstream answered HTTP %d%s to resuming the event stream after event %s", resp.StatusCode, loc, short(st.lastID))
	}
	before := st.lastID
	got, _ = c.readStream(resp.Body, env, st)
	if st.unusable != "" {
		return false, st.unusable
	}
	if !got && st.lastID == before && ctx.Err() == nil {
		// Nothing new: the same Last-Event-ID again is allowed (polling),
		// bounded by the timeout and the delay between GETs.
		return false, ""
	}
	return got, ""
}

// noteVersion keeps the protocol version of the upstream's initialize
// result for the MCP-Protocol-Version header of later requests.
func (c *Conn) noteVersion(msg []byte) {
	env, err := wire.ParseEnvelope(bytes.TrimSpace(msg))
	if err != nil || env.Result == nil {
		return
	}
	if v, _, ok := wire.Lookup(env.Result, "protocolVersion"); ok {
		if pv, ok := wire.Unquote(v); ok {
			c.mu.Lock()
			c.version = pv
			c.mu.Unlock()
		}
	}
}

// openGet opens the server-to-client stream once, after the session
// started; a server that does not offer one (405) has none.
func (c *Conn) openGet() {
	c.mu.Lock()
	if c.getOpened || c.session == "" {
		c.mu.Unlock()
		return
	}
	c.getOpened = true
	c.mu.Unlock()
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		req, err := newRequest(c.ctx, http.MethodGet, c.opts.URL, nil)
		if err != nil {
			return
		}
		c.setHeaders(req)
		req.Header.Set("Accept", "text/event-stream")
		resp, err := c.opts.Client.Do(req)
		if err != nil {
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return // 405: the server offers no stream
		}
		_ = sse.ReadEvents(bufio.NewReaderSize(resp.Body, 64<<10), func(_, typ string, data []byte) bool {
			if typ == "message" && len(bytes.TrimSpace(data)) > 0 && c.oneMessage(data, wire.Envelope{}) {
				c.deliver(data)
			}
			return true
		})
	}()
}

// newRequest is http.NewRequestWithContext for a request that net/http
// must never send twice by itself (behaviour §8.2). With a body, GetBody
// is cleared: the HTTP/1 transport re-sends a request on a new connection
// when a reused one fails before the answer only if it can rewind the
// body (GetBody) and the request counts as replayable — which a POST
// with an Idempotency-Key or X-Idempotency-Key header does — and the
// HTTP/2 transport re-sends after RST_STREAM(PROTOCOL_ERROR or
// REFUSED_STREAM) or a GOAWAY when it can rewind the body (GetBody),
// whatever the headers. The upstream may have executed a request it then
// lost, so a replay would execute a tools/call twice behind the judge's
// back; without GetBody each of these is an error to the proxy instead,
// an unknown outcome. Requests without a body (GET, DELETE) may be
// retried: a replayed GET reads again, a replayed DELETE ends a session
// that is ending.
func newRequest(ctx context.Context, method, url string, body []byte) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return nil, err
	}
	req.GetBody = nil
	return req, nil
}

// oneMessage reports whether data, a JSON body or an event's data, is one
// JSON-RPC message (a JSON object), the only thing the Conn delivers: a
// batch (whose responses carry the proxy's ids, which may be the agent's
// own too) or text that is not JSON would reach the agent raw. The first
// such message is logged.
func (c *Conn) oneMessage(data []byte, env wire.Envelope) bool {
	if _, err := wire.ParseEnvelope(bytes.TrimSpace(data)); err == nil {
		return true
	}
	if !c.warnedMsg.Swap(true) {
		what := "on the server-to-client stream"
		if env.HasMethod || env.ID != nil {
			what = "to a " + messageKind(env)
		}
		c.opts.Logf("WARNING: the upstream sent %s %s instead of one JSON-RPC message; it was not forwarded (only the first is reported)", notOneMessage(data), what)
	}
	return false
}

// notOneMessage names what data is instead of one JSON-RPC message.
func notOneMessage(data []byte) string {
	_, err := wire.ParseEnvelope(bytes.TrimSpace(data))
	if errors.Is(err, wire.ErrNotObject) {
		if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
			return "a JSON-RPC batch"
		}
		return "a JSON value that is not an object"
	}
	return "text that is not JSON"
}

// answers reports whether msg is the response to the request with id.
func answers(msg, id []byte) bool {
	env, err := wire.ParseEnvelope(bytes.TrimSpace(msg))
	return err == nil && !env.HasMethod && env.ID != nil && wire.IDKey(env.ID) == wire.IDKey(id)
}

func messageKind(env wire.Envelope) string {
	switch {
	case env.IsNotification():
		return "notification (" + env.Method + ")"
	case !env.HasMethod:
		return "response"
	}
	return "request (" + env.Method + ")"
}
