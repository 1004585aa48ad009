package relay

import (
	"bytes"
	"errors"

	"github.com/cuonztech/agent-harness/internal/wire"
)

// textBatchAnswer is the JSON-RPC error a request gets whose answer the
// upstream put inside a JSON-RPC batch; a tools/call gets the tool result
// textBatchAnswerResult (its outcome unknown, behaviour §4.2).
const (
	textBatchAnswer       = "agent-harness: the upstream answered this request inside a JSON-RPC batch, which is not forwarded; whether it ran is unknown"
	textBatchAnswerResult = "Error: the upstream MCP server answered inside a JSON-RPC batch, which agent-harness does not forward. The outcome is unknown."
)

// errBatchAnswer is a tools/call forward's error when the upstream
// answered it inside a batch.
var errBatchAnswer = errors.New("the upstream answered inside a JSON-RPC batch, which agent-harness does not forward")

// notOneMessage drops a line of the upstream that is not one JSON-RPC
// message (a batch, another JSON value, text that is not JSON), as the
// HTTP upstream does (httpupstream.Conn.oneMessage): forwarded as is it
// would reach the agent with the proxy's own upstream ids, which may be
// ids of the agent's other requests. The first such line is logged. A
// request a batch answers ends at once with an error (for a tools/call an
// unknown outcome, behaviour §4.2); one answered by text that is not JSON
// waits for its timeout.
func (s *session) notOneMessage(line []byte, err error) {
	t := bytes.TrimSpace(line)
	batch := errors.Is(err, wire.ErrNotObject) && len(t) > 0 && t[0] == '['
	if !s.warnedJSON.Swap(true) {
		what := "text that is not JSON"
		switch {
		case batch:
			what = "a JSON-RPC batch"
		case errors.Is(err, wire.ErrNotObject):
			what = "a JSON value that is not an object"
		}
		s.log.Printf("WARNING: the upstream wrote %s to stdout instead of one JSON-RPC message; it was not forwarded (only the first is reported)", what)
	}
	if !batch {
		return
	}
	var ids [][]byte
	// Elements of the batch only (one level).
	_, _ = wire.Elements(t, func(elem []byte, _ int) {
		if env, err := wire.ParseEnvelope(elem); err == nil && !env.HasMethod && usableID(env.ID) {
			ids = append(ids, env.ID)
		}
	})
	// Each answered request is routed as if this error were its answer
	// (an id that is not open is dropped with upstreamResponse's warning).
	for _, id := range ids {
		e := errorLine(id, &RPCError{Code: codeInternalError, Message: textBatchAnswer})
		if env, err := wire.ParseEnvelope(e); err == nil {
			s.routeResponse(upMsg{line: e, env: env, err: errBatchAnswer})
		}
	}
}
