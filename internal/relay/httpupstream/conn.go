// Package httpupstream is the upstream side of the proxy as an MCP
// Streamable HTTP client (behaviour §8): a relay.Conn that POSTs each message
// of the relay to the upstream's URL and hands every message of the
// answers (application/json or text/event-stream) and of the GET stream
// back to the relay, bytes unchanged (line breaks become spaces so a
// message stays one line).
//
// HTTP errors become answers the relay judges (the relay sees messages
// only):
//   - 400, 401, 403, 404 (without an expired session), 405, 415, 429 prove
//     the request never reached a tool: a tools/call gets an isError
//     result naming the status (judged not executed), another request a
//     JSON-RPC error;
//   - any other status, or a connection that fails before the answer: the
//     outcome is unknown, the request gets a JSON-RPC error (judged
//     unknown);
//   - 404 to a request that carried the session id: the upstream session
//     expired. It is reported once; the proxy does not re-initialise: the
//     pending request gets a JSON-RPC error (outcome unknown), every later
//     request an answer saying the session expired without being sent.
package httpupstream

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cuonztech/agent-harness/internal/relay"
	"github.com/cuonztech/agent-harness/internal/relay/sse"
	"github.com/cuonztech/agent-harness/internal/wire"
)

const (
	headerSession = sse.HeaderSessionID
	headerVersion = sse.HeaderProtocolVersion
	// closeWait bounds the DELETE that ends the upstream session.
	closeWait = 2 * time.Second
)

// Options configure a Conn.
type Options struct {
	// URL is the upstream's MCP endpoint.
	URL string
	// Header is sent with every request (--upstream-header,
	// --upstream-header-env); never logged.
	Header http.Header
	// Client is the HTTP client; nil is a client without a timeout (the
	// relay's call timeout bounds each request).
	Client *http.Client
	// Logf writes one diagnostic line.
	Logf func(format string, args ...any)
	// OnExpired is called once when the upstream session expired.
	OnExpired func()
	// AgentHeader, when set, returns the agent's end-to-end headers
	// (an HTTP agent side): they are sent with every request, before
	// Header (which wins).
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
	wg        sync.WaitGroup
}

// New returns a Conn; nothing is sent before the relay's first message.
func New(opts Options) *Conn {
	if opts.Client == nil {
		opts.Client = &http.Client{}
	}
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
		req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.opts.URL, nil)
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
// until its answer's headers (the session id) arrived.
func (c *Conn) WriteMessage(msg []byte) error {
	body := bytes.TrimRight(msg, "\r\n")
	body = append([]byte(nil), body...)
	env, _ := wire.ParseEnvelope(body)
	c.mu.Lock()
	wait := c.gate
	var done chan struct{}
	if env.IsRequest() && env.Method == "initialize" {
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
	sentSession := c.session != ""
	c.mu.Unlock()
	if expired {
		if isReq {
			c.answer(env, true, "agent-harness: the upstream MCP session expired earlier (HTTP 404); this request was not sent")
		}
		return
	}
	req, err := http.NewRequestWithContext(c.ctx, http.MethodPost, c.opts.URL, bytes.NewReader(body))
	if err != nil {
		if isReq {
			c.answer(env, true, "agent-harness: cannot send to the upstream: "+err.Error())
		}
		return
	}
	c.setHeaders(req)
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
	case resp.StatusCode >= 300:
		if !isReq {
			c.opts.Logf("WARNING: the upstream answered HTTP %d to a %s", resp.StatusCode, messageKind(env))
			return
		}
		text := fmt.Sprintf("agent-harness: the upstream answered HTTP %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
		if ra := resp.Header.Get("Retry-After"); ra != "" && resp.StatusCode == http.StatusTooManyRequests {
			text += " (Retry-After: " + ra + ")"
		}
		if notExecuted(resp.StatusCode) {
			c.answer(env, true, text+"; the request did not reach a tool")
		} else {
			c.answer(env, false, text+"; the outcome is unknown")
		}
		return
	}
	ct := strings.ToLower(resp.Header.Get("Content-Type"))
	got := false
	switch {
	case strings.HasPrefix(ct, "text/event-stream"):
		err = sse.ReadEvents(bufio.NewReaderSize(resp.Body, 64<<10), func(_, typ string, data []byte) bool {
			if typ == "message" && len(bytes.TrimSpace(data)) > 0 {
				if isReq && answers(data, env.ID) {
					got = true
					if env.Method == "initialize" {
						c.noteVersion(data)
					}
				}
				c.deliver(data)
			}
			return true
		})
	case strings.HasPrefix(ct, "application/json"):
		var data []byte
		data, err = io.ReadAll(resp.Body)
		if len(bytes.TrimSpace(data)) > 0 {
			got = isReq && answers(data, env.ID)
			if got && env.Method == "initialize" {
				c.noteVersion(data)
			}
			if err == nil {
				c.deliver(data)
			}
		}
	}
	if isReq && !got && c.ctx.Err() == nil {
		why := "the answer carried no response"
		if err != nil {
			why = "the answer broke off: " + err.Error()
		}
		c.answer(env, false, "agent-harness: the upstream's HTTP answer ended without the response ("+why+"); the outcome is unknown")
	}
	if env.Method == "initialize" && got {
		c.openGet()
	}
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
		req, err := http.NewRequestWithContext(c.ctx, http.MethodGet, c.opts.URL, nil)
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
			if typ == "message" && len(bytes.TrimSpace(data)) > 0 {
				c.deliver(data)
			}
			return true
		})
	}()
}

// notExecuted: statuses that prove the request never reached a tool.
func notExecuted(status int) bool {
	switch status {
	case 400, 401, 403, 404, 405, 415, 429:
		return true
	}
	return false
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

// answer gives the relay a response of the proxy's own to a request that
// got no answer from the upstream: for a tools/call whose request never
// reached a tool (notExecuted) an isError result, else a JSON-RPC error
// (the relay judges it an unknown outcome).
func (c *Conn) answer(env wire.Envelope, notExec bool, text string) {
	q := strconv.Quote(text)
	var b []byte
	switch {
	case notExec && env.Method == "tools/call":
		b = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%s}],"isError":true}}`, env.ID, q)
	case env.Method == "tools/call":
		// A tool result the agent's model sees, marked so the judge
		// counts the outcome as unknown (it may have executed), not as a
		// rejection (relay.OutcomeUnknownMeta).
		b = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%s}],"isError":true,"_meta":{%q:"unknown"}}}`, env.ID, q, relay.OutcomeMetaKey)
	default:
		b = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":%s}}`, env.ID, q)
	}
	c.deliver(b)
}
