package trace

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/report"
)

// Format and Version identify the trace format of the header line. A
// reader refuses versions it does not know: a change of meaning bumps it.
// Version 2 records the failures of every plugin hook and marks the
// disabling of a plugin with "disabled": true; version 1 recorded only
// classify and fault failures, and the disabling as a failure whose detail
// begins "disabled after " (Read still reads it).
const (
	Format  = "agent-harness-trace"
	Version = 2
)

// Line types besides the judge event kinds (call, forwarded, answer,
// delivered, tools, end).
const (
	TypeHeader        = "header"
	TypeStartupFailed = "startup-failed"
	// TypePluginFailure is a plugin's failed call, or its disabling
	// (Line.Disabled), as the plugin host reported it.
	TypePluginFailure = "plugin-failure"
	// TypeState is a state probe's snapshot (behaviour §16): At, Counters,
	// Invalid, and Detail for a failed probe.
	TypeState = "state"
)

// Schema is the JSON Schema of the trace's lines (trace.schema.json).
//
//go:embed trace.schema.json
var Schema []byte

// Settings are the settings of the proxy that affect judging, as the
// header records them and `agent-harness judge` replaces them.
type Settings struct {
	// Scenario is "F1".."F5", a plugin fault or "chaos"; "" is none.
	Scenario string `json:"scenario"`
	// Mode is "deterministic" or "chaos".
	Mode  string            `json:"mode"`
	Chaos *report.ChaosInfo `json:"chaos,omitempty"`
	// Kind is the report's kind ("proxy").
	Kind string `json:"kind"`
	// KeyFields are the --key-fields names.
	KeyFields []string `json:"keyFields"`
	// WriteTools are the --write-tools globs; null means the default
	// write patterns.
	WriteTools           []string `json:"writeTools"`
	ReadTools            []string `json:"readTools"`
	IdempotentTools      []string `json:"idempotentTools"`
	IgnoreIdempotentHint bool     `json:"ignoreIdempotentHint"`
	// RetryAfter is the F2 retry_after in seconds.
	RetryAfter      int  `json:"retryAfter"`
	RedactArguments bool `json:"redactArguments"`
	// Plugins are the --plugin paths (absolute), PluginConfig their
	// --plugin-config values by manifest name.
	Plugins      []string                   `json:"plugins"`
	PluginConfig map[string]json.RawMessage `json:"pluginConfig"`
	// StateCommand is the --state-command ("" = none) and StateMap the
	// --state-map values, tool → counter (behaviour §16).
	StateCommand string            `json:"stateCommand,omitempty"`
	StateMap     map[string]string `json:"stateMap,omitempty"`
}

// Header is the first line of a trace.
type Header struct {
	Type           string `json:"type"` // "header"
	Format         string `json:"format"`
	Version        int    `json:"version"`
	HarnessVersion string `json:"harnessVersion"`
	// StartedAt is the wall-clock start (RFC 3339, informational); every
	// line's t counts from it.
	StartedAt string           `json:"startedAt"`
	Settings  Settings         `json:"settings"`
	Transport report.Transport `json:"transport"`
	// Tools is the tool list known when the header was written: empty in
	// a proxy's trace (the header is written before the upstream starts;
	// each listing follows as a tools line).
	Tools []Tool `json:"tools"`
}

// Tool is one listed tool: the raw definition as the upstream sent it and
// the live classification.
type Tool struct {
	Definition json.RawMessage `json:"definition"`
	Entry      classify.Entry  `json:"classification"`
}

// Line is one event line: a judge.Event with its time as milliseconds
// since the start, and the raw data.
type Line struct {
	Type string `json:"type"`
	T    Millis `json:"t"`
	// Session is the agent session of a call ("s1", …) or the session a
	// session line opens.
	Session Session `json:"session,omitempty"`
	// Transport is the transport of the session a session line opens.
	Transport string `json:"transport,omitempty"`
	// OwnUpstream: the session a session line opens has an upstream
	// process of its own (--upstream-per-session).
	OwnUpstream bool  `json:"ownUpstream,omitempty"`
	Call        int64 `json:"call,omitempty"`

	// ToolCall is the called tool and the request (its fields are the
	// line's own: an embedded struct without a tag flattens).
	ToolCall

	Outcome        judge.Outcome   `json:"outcome,omitempty"`
	Scenario       string          `json:"scenario,omitempty"`
	Fault          string          `json:"fault,omitempty"`
	RetryAfterMs   int64           `json:"retryAfterMs,omitempty"`
	ResponseDigest string          `json:"responseDigest,omitempty"`
	Result         json.RawMessage `json:"result,omitempty"`
	ResultText     *string         `json:"resultText,omitempty"`
	Plugin         string          `json:"plugin,omitempty"`
	Detail         string          `json:"detail,omitempty"`
	// Disabled marks the plugin-failure line of a plugin's disabling.
	Disabled bool `json:"disabled,omitempty"`
	// TransportFault is judge.Event.TransportFault (delivered lines).
	TransportFault bool `json:"transportFault,omitempty"`

	// Listing is a tools line's listing.
	Listing

	// Snapshot is a state line's snapshot (its error is Detail).
	Snapshot
}

// ToolCall are the fields of a Line about the tool called and its request
// (call lines; delivered lines repeat the tool).
type ToolCall struct {
	Tool       string          `json:"tool,omitempty"`
	Class      classify.Class  `json:"class,omitempty"`
	AcceptsKey bool            `json:"acceptsKey,omitempty"`
	Idempotent bool            `json:"idempotent,omitempty"`
	Params     json.RawMessage `json:"params,omitempty"`
	// ParamsText holds params that were not valid JSON, as text.
	ParamsText *string `json:"paramsText,omitempty"`
	// RequestSeq is judge.Event.RequestSeq (call lines).
	RequestSeq int64 `json:"requestSeq,omitempty"`
}

// Listing are the fields of a tools line: Writes are the write tools of
// the listing, Tools the listing.
type Listing struct {
	Writes []string `json:"writes,omitempty"`
	Tools  []Tool   `json:"tools,omitempty"`
}

// Snapshot are the fields of a state line: At, Counters and Invalid are
// the state probe's snapshot.
type Snapshot struct {
	At       string                 `json:"at,omitempty"`
	Counters map[string]json.Number `json:"counters,omitempty"`
	Invalid  map[string]string      `json:"invalid,omitempty"`
}

// Millis is a duration written as milliseconds with up to six decimals
// (nanosecond precision), read back exactly.
type Millis time.Duration

// MarshalJSON writes ms[.ffffff].
func (m Millis) MarshalJSON() ([]byte, error) {
	return appendMillis(nil, time.Duration(m)), nil
}

func appendMillis(dst []byte, d time.Duration) []byte {
	if d < 0 {
		d = 0
	}
	dst = strconv.AppendInt(dst, int64(d/time.Millisecond), 10)
	if ns := int64(d % time.Millisecond); ns != 0 {
		frac := strconv.AppendInt([]byte("000000"), ns, 10)
		frac = frac[len(frac)-6:]
		for frac[len(frac)-1] == '0' {
			frac = frac[:len(frac)-1]
		}
		dst = append(append(dst, '.'), frac...)
	}
	return dst
}

var errMillis = errors.New("t is not a number of milliseconds (0 or more, at most 6 decimals)")

// UnmarshalJSON reads a non-negative decimal number of milliseconds.
func (m *Millis) UnmarshalJSON(b []byte) error {
	s := string(b)
	whole, frac, dot := strings.Cut(s, ".")
	if whole == "" || len(frac) > 6 || (dot && frac == "") || strings.ContainsAny(s, "eE+-") {
		return errMillis
	}
	ms, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || ms > math.MaxInt64/int64(time.Millisecond)-1 {
		return errMillis
	}
	var ns int64
	if frac != "" {
		n, err := strconv.ParseInt((frac + "000000")[:6], 10, 64)
		if err != nil {
			return errMillis
		}
		ns = n
	}
	*m = Millis(time.Duration(ms)*time.Millisecond + time.Duration(ns))
	return nil
}

// Session is a line's agent session ("s1", "s2", …). Lines written before
// sessions had names carry the number 1; it reads as "s1".
type Session string

// UnmarshalJSON reads a session name, or a positive session number N as
// "sN".
func (s *Session) UnmarshalJSON(b []byte) error {
	var n int64
	if err := json.Unmarshal(b, &n); err == nil {
		if n < 1 {
			return fmt.Errorf("session %d is not positive", n)
		}
		*s = Session("s" + strconv.FormatInt(n, 10))
		return nil
	}
	var name string
	if err := json.Unmarshal(b, &name); err != nil {
		return errors.New("session is neither a name nor a number")
	}
	*s = Session(name)
	return nil
}
