package sdk

import (
	"bytes"
	"encoding/json"
	"errors"
	"time"
)

// Class is a tool class.
type Class string

// Tool classes.
const (
	Read         Class = "read"
	Write        Class = "write"
	Unclassified Class = "unclassified"
	// Unknown is the class of a call to a tool the upstream did not list
	// (seen by fault hooks only).
	Unknown Class = "unknown"
)

// Tool is the tool definition a classifier sees. Annotations and
// InputSchema are the upstream's raw JSON, nil when absent.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
}

// Classification is a classifier's answer. Reason is shown in the proxy's
// startup table.
type Classification struct {
	Class  Class  `json:"class"`
	Reason string `json:"reason"`
}

// Call is a write call an equivalence hook gives an operation key.
type Call struct {
	Tool string `json:"tool"`
	// Arguments is the call's arguments object as the agent sent it, key
	// fields included ({} when the agent sent none or null).
	Arguments json.RawMessage `json:"arguments"`
	// KeyFields are the key-field names configured in the proxy
	// (--key-fields). A key must not depend on them: strip them with
	// StripKeyFields or Call.Args.
	KeyFields []string `json:"keyFields"`

	args   Value // Arguments, parsed by the SDK's dispatch
	parsed bool
}

// Args decodes Arguments with exact numbers (json.Number) and removes the
// top-level key fields. Value is the faster alternative.
func (c Call) Args() (map[string]any, error) { return decodeArgs(c.Arguments, c.KeyFields) }

// Value returns the arguments object without its top-level key fields as a
// parsed Value (already parsed by the dispatch: no second pass). Absent or
// null arguments are an empty object; anything but an object is an error.
func (c Call) Value() (Value, error) {
	v := c.args
	if !c.parsed {
		raw := bytes.TrimSpace(c.Arguments)
		if len(raw) == 0 {
			raw = []byte("null")
		}
		var err error
		if v, err = ParseJSON(raw); err != nil {
			return Value{}, err
		}
	}
	switch v.Kind {
	case Null:
		return Value{Kind: Object}, nil
	case Object:
		return v.WithoutKeyFields(c.KeyFields), nil
	}
	return Value{}, errors.New("arguments are not a JSON object")
}

// Pair is an earlier call whose outcome is uncertain and a later call of
// the same tool, for an equiv_same hook.
type Pair struct {
	Tool      string          `json:"tool"`
	Earlier   json.RawMessage `json:"earlier"`
	Later     json.RawMessage `json:"later"`
	KeyFields []string        `json:"keyFields"`
}

// Sameness is a pair check's answer.
type Sameness int

// Pair check answers.
const (
	// Different: not the same operation (also "no opinion").
	Different Sameness = iota
	// Same: the same operation; a second execution is a duplicate.
	Same
	// Possible: maybe the same; the run becomes NOT_TESTED.
	Possible
)

// FaultCall is what a fault hook sees of one tools/call.
type FaultCall struct {
	// Scenario is the fault name selected with --scenario.
	Scenario string
	// Applied counts the calls this fault was already applied to in the
	// session (the host keeps this state; instances are stateless). "Fires
	// on the first write" is Class == Write && Applied == 0.
	Applied int
	// ID is the proxy's sequence number of the call (1, 2, …).
	ID int64
	// Tool is the called tool.
	Tool string
	// Class is Read, Write, Unclassified or Unknown.
	Class Class
	// Arguments is the raw arguments object ({} when absent).
	Arguments json.RawMessage
	// Time is when the proxy received the call.
	Time time.Time
}

// ActionKind says what the host does with a call.
type ActionKind int

// Action kinds.
const (
	// Pass forwards the call and returns the upstream's answer, after the
	// delays if any (a Pass with a delay counts as applied).
	Pass ActionKind = iota
	// Inject answers with Result without forwarding (nothing executes).
	Inject
	// ExecuteThenReplace forwards the call and, if the upstream executed
	// it, answers with Result instead of the upstream's answer.
	ExecuteThenReplace
)

// Action is a fault hook's decision. The zero Action passes the call
// unchanged and does not count as applied.
type Action struct {
	Kind ActionKind
	// Result is the MCP tool result (a CallToolResult object) for Inject
	// and ExecuteThenReplace; see ErrorResult.
	Result json.RawMessage
	// Fault is the fault kind recorded for the agent's answer; default the
	// scenario name. Ignored for Pass.
	Fault string
	// Delay is waited by the host before acting (forwarding or injecting).
	Delay time.Duration
	// DelayAfter is waited by the host after the upstream answered, before
	// the agent gets the answer. Not allowed with Inject.
	DelayAfter time.Duration
}

// FaultFunc decides one call for one fault name.
type FaultFunc func(FaultCall) (Action, error)

// ErrorResult is a tool result with isError true and one text item.
func ErrorResult(text string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		"content": []any{map[string]any{"type": "text", "text": text}},
		"isError": true,
	})
	return b
}
