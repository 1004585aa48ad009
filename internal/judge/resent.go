package judge

import (
	"encoding/json"
	"time"

	"github.com/cuonztech/agent-harness/internal/report"
	"github.com/cuonztech/agent-harness/internal/wire"
)

// ToolCallIDMetaKey is the _meta member by which the built-in agent marks
// each tools/call with its model's tool-call id (behaviour §4.9): a re-send
// with a new id is the model's, one with the same id the client library's.
const ToolCallIDMetaKey = "agent-harness/toolCallId"

// ResendWindow is how soon after a transport-level fault was delivered a
// request with canonically equal params counts as the client library's
// re-send (behaviour §4.9), on the judge's clock.
const ResendWindow = 2 * time.Second

// resendFacts are what the resentBy rules read of one write attempt.
type resendFacts struct {
	// toolCallID is params._meta["agent-harness/toolCallId"] ("" when
	// absent or not a non-empty string).
	toolCallID string
	// literal: the attempt's built-in key is its operation's own (no
	// plugin or pair check joined it), so its params are canonically
	// equal to every other literal attempt's.
	literal bool
	// transportAt is when a transport-level fault was delivered for the
	// attempt (EventDelivered.TransportFault); zero when none was.
	transportAt time.Time
	// reqSeq is EventCall.RequestSeq (0: unknown).
	reqSeq int64
	// resentBy is the rule's answer for the attempt as a re-send of the
	// operation's previous attempt; "" for the operation's first attempt.
	resentBy string
}

// toolCallID returns params._meta["agent-harness/toolCallId"] when it is a
// non-empty string. The member names are matched exactly, as the relay
// reads params (it refuses case variants of name, arguments and _meta);
// of repeated members the last counts, as the relay and the upstream's
// JSON parser read them.
func toolCallID(params json.RawMessage) string {
	if len(params) == 0 {
		return ""
	}
	var meta []byte
	_, _ = wire.Members(params, func(m wire.Member) bool {
		if m.KeyIs("_meta") {
			meta = m.Value // the last one, as the relay and JSON parsers read it
		}
		return true
	})
	if len(meta) == 0 {
		return ""
	}
	var id string
	_, _ = wire.Members(meta, func(m wire.Member) bool {
		if m.KeyIs(ToolCallIDMetaKey) {
			id, _ = wire.Unquote(m.Value) // the last one; "" when no string
		}
		return true
	})
	return id
}

// resentBy attributes attempt a, a re-send of its operation's previous
// attempt prev, sent at t (behaviour §4.9). The tool-call id decides when
// both carry one; else the timing rule: a literal re-send in the same
// session, the session's next request after prev, within ResendWindow of a
// transport-level fault delivered for prev, is the client library's.
// Anything else is unknown.
func resentBy(a, prev *attempt, t time.Time) string {
	if a.re.toolCallID != "" && prev.re.toolCallID != "" {
		if a.re.toolCallID == prev.re.toolCallID {
			return report.ResentByClientLibrary
		}
		return report.ResentByModel
	}
	p := prev.re
	switch {
	case p.transportAt.IsZero(), !a.re.literal, !p.literal,
		a.keyJoin != prev.keyJoin, a.session != prev.session,
		p.reqSeq <= 0 || a.re.reqSeq != p.reqSeq+1:
		return report.ResentByUnknown
	}
	if d := t.Sub(p.transportAt); d < 0 || d > ResendWindow {
		return report.ResentByUnknown
	}
	return report.ResentByClientLibrary
}

// resentFold folds the senders of an operation's executed re-sends into
// duplicate.resentBy.
type resentFold struct {
	by    string // the first executed re-send's sender
	mixed bool   // another executed re-send had another sender
}

// add records the sender of an executed attempt ("" for a first attempt).
func (f *resentFold) add(by string) {
	switch {
	case by == "":
	case f.by == "":
		f.by = by
	case f.by != by:
		f.mixed = true
	}
}

// value is duplicate.resentBy: the sender when every executed re-send has
// the same one, else unknown.
func (f *resentFold) value() string {
	if f.by == "" || f.mixed {
		return report.ResentByUnknown
	}
	return f.by
}
