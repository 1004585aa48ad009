package sdk

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// StateInput is what a state hook is given (ABI.md, "state"): the run's
// write operations and the state probe's snapshots before the upstream
// started and after the session ended.
type StateInput struct {
	Operations []StateOperation `json:"operations"`
	Before     Snapshot         `json:"before"`
	After      Snapshot         `json:"after"`
}

// StateOperation is one write operation of the run.
type StateOperation struct {
	// ID is the report's operations[].id, e.g. "op-1".
	ID   string `json:"id"`
	Tool string `json:"tool"`
	// Arguments are the first attempt's arguments as the agent sent them.
	Arguments json.RawMessage `json:"arguments"`
	// Executions counts the attempts the wire saw execute; Unknown those
	// whose outcome is uncertain (no answer, no usable answer, isError).
	Executions int `json:"executions"`
	Unknown    int `json:"unknown"`
}

// Snapshot is one run of the state probe: the numeric members of the JSON
// object it printed. A hook is only called when both snapshots succeeded.
type Snapshot struct {
	At       string                 `json:"at"`
	Time     string                 `json:"time,omitempty"`
	Counters map[string]json.Number `json:"counters,omitempty"`
	Error    string                 `json:"error,omitempty"`
	Invalid  map[string]string      `json:"invalid,omitempty"`
}

// Count returns the integer counter name; ok false when it is absent or
// not an integer.
func (s Snapshot) Count(name string) (n int64, ok bool) {
	v, present := s.Counters[name]
	if !present {
		return 0, false
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil
}

// Effects maps an operation's ID to its effect: how often the backend
// executed it. An operation left out is null: the hook cannot attribute
// its effect, and the wire judges it. An effect must be within ±2^53.
type Effects map[string]int64

// StateFunc attributes effects to operations.
type StateFunc func(StateInput) (Effects, error)

const maxEffect = 1 << 53

func (p *Plugin) state(input []byte) []byte {
	if p.State == nil {
		return nil
	}
	var in StateInput
	if err := json.Unmarshal(input, &in); err != nil {
		return errorJSON("sdk: decoding state input: " + err.Error())
	}
	effects, err := p.State(in)
	if err != nil {
		return errorJSON(err.Error())
	}
	asked := make(map[string]bool, len(in.Operations))
	out := make(map[string]*int64, len(in.Operations))
	for _, op := range in.Operations {
		asked[op.ID] = true
		out[op.ID] = nil
	}
	for id, e := range effects {
		if !asked[id] {
			return errorJSON(fmt.Sprintf("sdk: effects for operation %q, which was not asked about", id))
		}
		if e > maxEffect || e < -maxEffect {
			return errorJSON(fmt.Sprintf("sdk: effect %d of operation %q is outside ±2^53", e, id))
		}
		out[id] = &e
	}
	return mustJSON(struct {
		Effects map[string]*int64 `json:"effects"`
	}{out})
}
