package sdk

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/cuonztech/agent-harness/sdk/abi"
)

// Hook names accepted by Handle (the export names without "ah_").
const (
	HookManifest  = "manifest"
	HookInit      = "init"
	HookClassify  = abi.HookClassify
	HookEquivKey  = abi.HookEquivKey
	HookEquivSame = abi.HookEquivSame
	HookFault     = abi.HookFault
)

// Handle runs one hook of the registered plugin on a JSON input and
// returns the JSON output the export returns to the host: nil for "no
// opinion", {"error": …} when the input cannot be decoded, the handler
// returns an error or panics. It never panics. The exports call it; native
// tests can call it to exercise the exact JSON a host would see.
func Handle(hook string, input []byte) (out []byte) {
	defer func() {
		if r := recover(); r != nil {
			out = errorJSON(fmt.Sprintf("panic: %v", r))
		}
	}()
	p := registered
	if p == nil {
		return errorJSON("sdk: no plugin registered (call sdk.Register from an init function)")
	}
	switch hook {
	case HookManifest:
		return mustJSON(p.manifest())
	case HookInit:
		if p.Init == nil {
			return nil
		}
		cfg := json.RawMessage(bytes.Clone(input))
		if err := p.Init(cfg); err != nil {
			return errorJSON(err.Error())
		}
		return nil
	case HookClassify:
		return p.classify(input)
	case HookEquivKey:
		return p.equivKey(input)
	case HookEquivSame:
		return p.equivSame(input)
	case HookFault:
		return p.fault(input)
	}
	return errorJSON("sdk: unknown hook " + hook)
}

func (p *Plugin) classify(input []byte) []byte {
	if p.Classify == nil {
		return nil
	}
	var t Tool
	if err := json.Unmarshal(input, &t); err != nil {
		return errorJSON("sdk: decoding classify input: " + err.Error())
	}
	c, ok, err := p.Classify(t)
	if err != nil {
		return errorJSON(err.Error())
	}
	if !ok {
		return nil
	}
	return mustJSON(c)
}

// equivKey runs on every write call, so it parses with ParseJSON and
// encodes by hand: encoding/json's reflection costs several times more in
// a WebAssembly guest.
func (p *Plugin) equivKey(input []byte) []byte {
	if p.EquivKey == nil {
		return nil
	}
	c, err := parseCall(input)
	if err != nil {
		return errorJSON("sdk: decoding equiv_key input: " + err.Error())
	}
	key, ok, err := p.EquivKey(c)
	if err != nil {
		return errorJSON(err.Error())
	}
	if !ok {
		return nil
	}
	out := append(make([]byte, 0, len(key)+12), `{"key":`...)
	out = appendString(out, key)
	return append(out, '}')
}

// parseCall reads {"tool", "arguments", "keyFields"}.
func parseCall(input []byte) (Call, error) {
	v, err := ParseJSON(input)
	if err != nil {
		return Call{}, err
	}
	if v.Kind != Object {
		return Call{}, errors.New("input is not an object")
	}
	var c Call
	if t, ok := v.Get("tool"); ok && t.Kind == String {
		c.Tool = t.Text
	}
	if a, ok := v.Get("arguments"); ok {
		c.Arguments = bytes.Clone(input[a.start:a.end])
		c.args, c.parsed = a, true
	}
	if kf, ok := v.Get("keyFields"); ok {
		for _, it := range kf.Items {
			if it.Kind == String {
				c.KeyFields = append(c.KeyFields, it.Text)
			}
		}
	}
	return c, nil
}

func (p *Plugin) equivSame(input []byte) []byte {
	if p.EquivSame == nil {
		return nil
	}
	var pr Pair
	if err := json.Unmarshal(input, &pr); err != nil {
		return errorJSON("sdk: decoding equiv_same input: " + err.Error())
	}
	s, reason, err := p.EquivSame(pr)
	if err != nil {
		return errorJSON(err.Error())
	}
	var same any
	switch s {
	case Same:
		same = true
	case Possible:
		same = "possible"
	default:
		if reason == "" {
			return nil
		}
		same = false
	}
	return mustJSON(struct {
		Same   any    `json:"same"`
		Reason string `json:"reason,omitempty"`
	}{same, reason})
}

var actionNames = map[ActionKind]string{Pass: "pass", Inject: "inject", ExecuteThenReplace: "execute_then_replace"}

// fault runs on every call of a session with a plugin scenario, so like
// equivKey it parses with ParseJSON and encodes by hand.
func (p *Plugin) fault(input []byte) []byte {
	in, err := parseFaultCall(input)
	if err != nil {
		return errorJSON("sdk: decoding fault input: " + err.Error())
	}
	f := p.Faults[in.Scenario]
	if f == nil {
		return errorJSON("sdk: unknown fault " + in.Scenario)
	}
	a, err := f(in)
	if err != nil {
		return errorJSON(err.Error())
	}
	name, ok := actionNames[a.Kind]
	if !ok {
		return errorJSON(fmt.Sprintf("sdk: unknown action kind %d", a.Kind))
	}
	if a.Kind == Pass && a.Delay == 0 && a.DelayAfter == 0 {
		return nil
	}
	out := append(make([]byte, 0, 64+len(a.Result)), `{"action":"`...)
	out = append(out, name...)
	out = append(out, '"')
	if a.Kind != Pass {
		if len(a.Result) > 0 {
			out = append(out, `,"result":`...)
			out = append(out, a.Result...)
		}
		if a.Fault != "" {
			out = append(out, `,"fault":`...)
			out = appendString(out, a.Fault)
		}
	}
	if ms := a.Delay.Milliseconds(); ms != 0 {
		out = append(out, `,"delay_ms":`...)
		out = strconv.AppendInt(out, ms, 10)
	}
	if ms := a.DelayAfter.Milliseconds(); ms != 0 {
		out = append(out, `,"delay_after_ms":`...)
		out = strconv.AppendInt(out, ms, 10)
	}
	return append(out, '}')
}

// parseFaultCall reads {"scenario", "applied", "call": {…}}.
func parseFaultCall(input []byte) (FaultCall, error) {
	v, err := ParseJSON(input)
	if err != nil {
		return FaultCall{}, err
	}
	var c FaultCall
	if s, ok := v.Get("scenario"); ok && s.Kind == String {
		c.Scenario = s.Text
	}
	if n, ok := v.Get("applied"); ok && n.Kind == Number {
		c.Applied, _ = strconv.Atoi(n.Text)
	}
	call, _ := v.Get("call")
	if n, ok := call.Get("id"); ok && n.Kind == Number {
		c.ID, _ = strconv.ParseInt(n.Text, 10, 64)
	}
	if s, ok := call.Get("tool"); ok && s.Kind == String {
		c.Tool = s.Text
	}
	if s, ok := call.Get("class"); ok && s.Kind == String {
		c.Class = Class(s.Text)
	}
	if a, ok := call.Get("arguments"); ok {
		c.Arguments = bytes.Clone(input[a.start:a.end])
	}
	if s, ok := call.Get("time"); ok && s.Kind == String {
		if c.Time, err = time.Parse(time.RFC3339Nano, s.Text); err != nil {
			return FaultCall{}, err
		}
	}
	return c, nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return errorJSON("sdk: encoding output: " + err.Error())
	}
	return b
}

func errorJSON(msg string) []byte {
	b, _ := json.Marshal(struct {
		Error string `json:"error"`
	}{msg})
	return b
}
