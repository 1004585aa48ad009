package main

import (
	"encoding/json"
	"testing"

	"github.com/cuonztech/agent-harness/sdk"
)

func op(id, tool, args string) sdk.StateOperation {
	return sdk.StateOperation{ID: id, Tool: tool, Arguments: json.RawMessage(args)}
}

func snap(kv ...any) sdk.Snapshot {
	s := sdk.Snapshot{Counters: map[string]json.Number{}}
	for i := 0; i < len(kv); i += 2 {
		s.Counters[kv[i].(string)] = json.Number(kv[i+1].(string))
	}
	return s
}

// TestAttribute: one operation per guest gets its guest's rise; two of
// one guest, another tool, no guest, a counter missing after or not an
// integer are left to the wire.
func TestAttribute(t *testing.T) {
	in := sdk.StateInput{
		Operations: []sdk.StateOperation{
			op("op-1", "create_booking", `{"guest":"Ada","date":"2027-01-02"}`),
			op("op-2", "create_booking", `{"guest":"Bob"}`),
			op("op-3", "create_booking", `{"guest":"Cy","date":"1"}`),
			op("op-4", "create_booking", `{"guest":"Cy","date":"2"}`),
			op("op-5", "cancel_booking", `{"guest":"Dee"}`),
			op("op-6", "create_booking", `{"room":"1"}`),
			op("op-7", "create_booking", `{"guest":"Eve"}`),
			op("op-8", "create_booking", `{"guest":"Fay"}`),
		},
		Before: snap("bookings:Ada", "3", "bookings:Fay", "1.5"),
		After:  snap("bookings:Ada", "4", "bookings:Bob", "2", "bookings:Cy", "2", "bookings:Dee", "1", "bookings:Fay", "1"),
	}
	got, err := Attribute(in)
	if err != nil || len(got) != 2 || got["op-1"] != 1 || got["op-2"] != 2 {
		t.Errorf("%v %v", got, err)
	}
	b := sdk.Handle(sdk.HookState, mustJSON(t, in))
	if want := `{"effects":{"op-1":1,"op-2":2,"op-3":null,"op-4":null,"op-5":null,"op-6":null,"op-7":null,"op-8":null}}`; string(b) != want {
		t.Errorf("%s, want %s", b, want)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
