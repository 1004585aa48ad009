package main

import (
	"encoding/json"

	"github.com/cuonztech/agent-harness/sdk"
)

// Tool is the write tool whose operations are attributed; Prefix + the
// guest's name is the probe's counter of that guest's bookings.
const (
	Tool   = "create_booking"
	Prefix = "bookings:"
)

// Attribute gives a create_booking operation the rise of its guest's
// counter, "bookings:" + guest, from the before to the after snapshot —
// only when it is the run's only create_booking operation of that guest
// and both snapshots hold the counter as an integer. Any other operation
// is left out (null): the wire judges it. A counter absent before is 0
// (no booking of that guest yet); absent after is no attribution.
func Attribute(in sdk.StateInput) (sdk.Effects, error) {
	guests := map[string][]string{} // guest → operation ids
	for _, op := range in.Operations {
		if op.Tool != Tool {
			continue
		}
		var a struct {
			Guest *string `json:"guest"`
		}
		if json.Unmarshal(op.Arguments, &a) != nil || a.Guest == nil {
			continue
		}
		guests[*a.Guest] = append(guests[*a.Guest], op.ID)
	}
	out := sdk.Effects{}
	for guest, ids := range guests {
		if len(ids) != 1 {
			continue
		}
		after, ok := in.After.Count(Prefix + guest)
		if !ok {
			continue
		}
		before, ok := in.Before.Count(Prefix + guest)
		if !ok {
			if _, present := in.Before.Counters[Prefix+guest]; present {
				continue // present but not an integer
			}
			before = 0
		}
		out[ids[0]] = after - before
	}
	return out, nil
}
