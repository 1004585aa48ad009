package httpupstream

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/cuonztech/agent-harness/internal/relay/sse"
	"github.com/cuonztech/agent-harness/internal/wire"
)

// maxStatusBody bounds how much of the body of a status that proves no
// tool ran is read to look for the call's result; a longer body cannot be
// checked, so the status is not believed.
const maxStatusBody = 16 << 20

// notExecuted: statuses that prove the request never reached a tool.
func notExecuted(status int) bool {
	switch status {
	case 400, 401, 403, 404, 405, 415, 429:
		return true
	}
	return false
}

// statusContradicted reads the body of an answer whose status proves no
// tool ran (notExecuted) and says why the status cannot be believed for
// the request env: the body — JSON, a batch, or an event stream — holds a
// response for the request that is not a JSON-RPC error (the upstream ran
// the call, then something set the status: behaviour §8.2), or the body
// could not be read to its end. "" when the status stands. The read ends
// with Options.Timeout from the POST (started), as the call would.
func (c *Conn) statusContradicted(resp *http.Response, env wire.Envelope, started time.Time) string {
	if c.opts.Timeout > 0 {
		t := time.AfterFunc(c.opts.Timeout-time.Since(started), func() { resp.Body.Close() })
		defer t.Stop()
	}
	body := io.LimitReader(resp.Body, maxStatusBody+1)
	const holds = "but its body is the call's response (the upstream answered the call)"
	if strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), "text/event-stream") {
		found, n := false, int64(0)
		err := sse.ReadEvents(bufio.NewReaderSize(&countReader{r: body, n: &n}, 64<<10), func(_, typ string, data []byte) bool {
			found = typ == "message" && responseIn(data, env.ID)
			return !found
		})
		switch {
		case found:
			return holds
		case err != nil:
			return "and its body broke off before agent-harness could check it for the call's response: " + err.Error()
		case n > maxStatusBody:
			return "and its body is too long to check for the call's response"
		}
		return ""
	}
	data, err := io.ReadAll(body)
	switch {
	case err != nil:
		return "and its body broke off before agent-harness could check it for the call's response: " + err.Error()
	case len(data) > maxStatusBody:
		return "and its body is too long to check for the call's response"
	case responseIn(data, env.ID):
		return holds
	}
	// A body that is an event stream without saying so.
	found := false
	_ = sse.ReadEvents(bufio.NewReader(bytes.NewReader(data)), func(_, typ string, d []byte) bool {
		found = typ == "message" && responseIn(d, env.ID)
		return !found
	})
	if found {
		return holds
	}
	return ""
}

// responseIn reports whether msg — one JSON-RPC message or a batch of
// them — holds a response to the request with id that is not an error:
// a result, or neither result nor error.
func responseIn(msg, id []byte) bool {
	msg = bytes.TrimSpace(msg)
	if len(msg) > 0 && msg[0] == '[' {
		found := false
		// Elements of a batch only (one level: no recursion a deep
		// nesting could exhaust).
		_, _ = wire.Elements(msg, func(elem []byte, _ int) {
			found = found || isResponseTo(elem, id)
		})
		return found
	}
	return isResponseTo(msg, id)
}

func isResponseTo(msg, id []byte) bool {
	env, err := wire.ParseEnvelope(msg)
	return err == nil && !env.HasMethod && env.ID != nil && wire.IDKey(env.ID) == wire.IDKey(id) &&
		(env.Result != nil || env.Error == nil)
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n *int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += int64(n)
	return n, err
}
