package sdk

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Hook names accepted by Handle (the export names without "ah_").
const (
	HookManifest  = "manifest"
	HookInit      = "init"
	HookClassify  = "classify"
	HookEquivKey  = "equiv_key"
	HookEquivSame = "equiv_same"
	HookFault     = "fault"
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

func (p *Plugin) equivKey(input []byte) []byte {
	if p.EquivKey == nil {
		return nil
	}
	var c Call
	if err := json.Unmarshal(input, &c); err != nil {
		return errorJSON("sdk: decoding equiv_key input: " + err.Error())
	}
	key, ok, err := p.EquivKey(c)
	if err != nil {
		return errorJSON(err.Error())
	}
	if !ok {
		return nil
	}
	return mustJSON(struct {
		Key string `json:"key"`
	}{key})
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

// faultInput is ah_fault's input.
type faultInput struct {
	Scenario string `json:"scenario"`
	Applied  int    `json:"applied"`
	Call     struct {
		ID        int64           `json:"id"`
		Tool      string          `json:"tool"`
		Class     Class           `json:"class"`
		Arguments json.RawMessage `json:"arguments"`
		Time      time.Time       `json:"time"`
	} `json:"call"`
}

// faultOutput is ah_fault's answer.
type faultOutput struct {
	Action       string          `json:"action"`
	Result       json.RawMessage `json:"result,omitempty"`
	Fault        string          `json:"fault,omitempty"`
	DelayMs      int64           `json:"delay_ms,omitempty"`
	DelayAfterMs int64           `json:"delay_after_ms,omitempty"`
}

var actionNames = map[ActionKind]string{Pass: "pass", Inject: "inject", ExecuteThenReplace: "execute_then_replace"}

func (p *Plugin) fault(input []byte) []byte {
	var in faultInput
	if err := json.Unmarshal(input, &in); err != nil {
		return errorJSON("sdk: decoding fault input: " + err.Error())
	}
	f := p.Faults[in.Scenario]
	if f == nil {
		return errorJSON("sdk: unknown fault " + in.Scenario)
	}
	a, err := f(FaultCall{
		Scenario: in.Scenario, Applied: in.Applied, ID: in.Call.ID, Tool: in.Call.Tool,
		Class: in.Call.Class, Arguments: in.Call.Arguments, Time: in.Call.Time,
	})
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
	out := faultOutput{Action: name, DelayMs: a.Delay.Milliseconds(), DelayAfterMs: a.DelayAfter.Milliseconds()}
	if a.Kind != Pass {
		out.Result, out.Fault = a.Result, a.Fault
	}
	return mustJSON(out)
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
