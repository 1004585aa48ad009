package plugin

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/fault"
)

// Faults returns one fault.Fault per fault name in the manifest (nil when
// the fault hook is absent). Each also implements fault.Settler.
//
// The guest is stateless across instances, so the host keeps each fault's
// state: how many calls it was applied to ("applied" in the input), with
// claims of forwarded calls released by Settle when the upstream did not
// execute the call (as F1 re-arms). Decisions of one fault are serialised,
// so of two writes arriving at once exactly one sees applied = 0.
//
// A failed or disabled plugin passes the call through unchanged (the
// failure is reported through Options.OnFailure).
func (p *Plugin) Faults() []fault.Fault {
	out := make([]fault.Fault, 0, len(p.faults))
	for _, f := range p.faults {
		out = append(out, f)
	}
	return out
}

// pluginFault adapts one declared fault name.
type pluginFault struct {
	p    *Plugin
	name string

	mu      sync.Mutex
	applied int
	pending map[int64]bool // forwarded calls whose claim awaits Settle
}

// Name is the scenario name selected with --scenario.
func (f *pluginFault) Name() string { return f.name }

// faultInput is ah_fault's input.
type faultInput struct {
	Scenario string    `json:"scenario"`
	Applied  int       `json:"applied"`
	Call     faultCall `json:"call"`
}

type faultCall struct {
	ID        int64           `json:"id"`
	Tool      string          `json:"tool"`
	Class     string          `json:"class"`
	Arguments json.RawMessage `json:"arguments"`
	Time      string          `json:"time"`
}

// faultOutput is ah_fault's answer.
type faultOutput struct {
	Action       string          `json:"action"`
	Result       json.RawMessage `json:"result"`
	Fault        string          `json:"fault"`
	DelayMs      int64           `json:"delay_ms"`
	DelayAfterMs int64           `json:"delay_after_ms"`
}

// Decide asks the plugin what to do with c. Writes of idempotent tools are
// never offered (behaviour §4.8: scenarios fire on writes that are not
// idempotent): they pass unchanged and do not count as applied.
func (f *pluginFault) Decide(c fault.Call) fault.Action {
	if c.Class == classify.Write && c.Idempotent {
		return fault.Action{}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	what := "fault " + f.name + " " + c.Tool
	args, err := normalArgs(c.Arguments)
	if err != nil {
		f.p.fail(what, err)
		return fault.Action{}
	}
	input, err := json.Marshal(faultInput{
		Scenario: f.name, Applied: f.applied,
		Call: faultCall{ID: c.ID, Tool: c.Tool, Class: string(c.Class), Arguments: args,
			Time: c.Time.UTC().Format(time.RFC3339Nano)},
	})
	if err != nil {
		f.p.fail(what, fmt.Errorf("encoding input: %w", err))
		return fault.Action{}
	}
	var a fault.Action
	if err := f.p.invoke(HookFault, what, input, func(out []byte) error {
		var perr error
		a, perr = f.parse(out, c)
		return perr
	}); err != nil {
		return fault.Action{}
	}
	if a.Scenario == "" {
		return a
	}
	f.applied++
	if a.Kind != fault.Inject {
		if f.pending == nil {
			f.pending = map[int64]bool{}
		}
		f.pending[c.ID] = true
	}
	return a
}

// parse validates ah_fault's answer for call c and turns it into an
// Action. The result is what fault.Deliver makes of it for c's client; one
// that no client could accept as a tool result (behaviour §3.3) is refused.
func (f *pluginFault) parse(out []byte, c fault.Call) (fault.Action, error) {
	if len(out) == 0 {
		return fault.Action{}, nil
	}
	var o faultOutput
	if err := decodeStrict(out, &o); err != nil {
		return fault.Action{}, err
	}
	maxMs := f.p.opts.MaxDelay.Milliseconds()
	if o.DelayMs < 0 || o.DelayMs > maxMs || o.DelayAfterMs < 0 || o.DelayAfterMs > maxMs {
		return fault.Action{}, fmt.Errorf("delays must be 0–%d ms", maxMs)
	}
	a := fault.Action{
		Scenario:   f.name,
		Delay:      time.Duration(o.DelayMs) * time.Millisecond,
		DelayAfter: time.Duration(o.DelayAfterMs) * time.Millisecond,
	}
	switch o.Action {
	case "pass", "":
		if o.Action == "" && (o.DelayMs != 0 || o.DelayAfterMs != 0 || len(o.Result) > 0) {
			return fault.Action{}, fmt.Errorf(`"action" missing`)
		}
		if len(o.Result) > 0 {
			return fault.Action{}, fmt.Errorf(`action "pass" takes no "result"`)
		}
		if a.Delay == 0 && a.DelayAfter == 0 {
			return fault.Action{}, nil // not applied
		}
		return a, nil
	case "inject":
		if a.DelayAfter != 0 {
			return fault.Action{}, fmt.Errorf(`"delay_after_ms" needs a forwarded call, not "inject"`)
		}
		a.Kind = fault.Inject
	case "execute_then_replace":
		a.Kind = fault.ForwardReplace
	default:
		return fault.Action{}, fmt.Errorf(`"action" %q is not pass, inject or execute_then_replace`, truncate(o.Action, 40))
	}
	if err := checkResult(o.Result); err != nil {
		return fault.Action{}, err
	}
	r, err := fault.Deliver(o.Result, c)
	if err != nil {
		return fault.Action{}, fmt.Errorf(`"result" for %s: %w`, truncate(c.Tool, 64), err)
	}
	a.Result = r
	a.Fault = o.Fault
	if a.Fault == "" {
		a.Fault = f.name
	}
	if !validName(a.Fault, 64) {
		return fault.Action{}, fmt.Errorf(`"fault" %q must be 1–64 characters a-z, 0-9, '_' or '-'`, truncate(a.Fault, 70))
	}
	return a, nil
}

// checkResult requires an MCP CallToolResult-shaped object.
func checkResult(r json.RawMessage) error {
	if len(r) == 0 {
		return fmt.Errorf(`"result" missing`)
	}
	var res struct {
		Content []json.RawMessage `json:"content"`
		IsError json.RawMessage   `json:"isError"`
	}
	if err := json.Unmarshal(r, &res); err != nil || res.Content == nil {
		return fmt.Errorf(`"result" must be a tool result object with a "content" array`)
	}
	if len(res.IsError) > 0 && string(res.IsError) != "true" && string(res.IsError) != "false" {
		return fmt.Errorf(`"result" "isError" must be true or false`)
	}
	for i, c := range res.Content {
		var item struct {
			Type *string `json:"type"`
		}
		if err := json.Unmarshal(c, &item); err != nil || item.Type == nil || *item.Type == "" {
			return fmt.Errorf(`"result" content item %d must be an object with a "type"`, i)
		}
	}
	return nil
}

// Settle releases the claim of a forwarded call the upstream did not
// execute, so the fault applies to a later call again.
func (f *pluginFault) Settle(c fault.Call, a fault.Action, executed bool) {
	if a.Scenario != f.name {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.pending[c.ID] {
		return
	}
	delete(f.pending, c.ID)
	if !executed && f.applied > 0 {
		f.applied--
	}
}
