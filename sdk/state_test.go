package sdk

import (
	"errors"
	"testing"
)

// TestHandleState: the state hook's answer names every operation asked
// (null for those the handler left out), and the SDK refuses what the
// host would (an id not asked, an effect beyond ±2^53).
func TestHandleState(t *testing.T) {
	var effects Effects
	var err error
	withPlugin(t, Plugin{Name: "t", Version: "1", State: func(in StateInput) (Effects, error) {
		if n, ok := in.After.Count("bookings"); !ok || n != 2 || in.Operations[0].Tool != "create_booking" {
			return nil, errors.New("bad input")
		}
		return effects, err
	}})
	const in = `{"operations":[{"id":"op-1","tool":"create_booking","arguments":{},"executions":2,"unknown":0},{"id":"op-2","tool":"create_booking","arguments":{},"executions":1,"unknown":0}],` +
		`"before":{"at":"before","counters":{"bookings":0}},"after":{"at":"after","counters":{"bookings":2}}}`
	for _, c := range []struct {
		effects Effects
		err     error
		want    string
	}{
		{Effects{"op-1": 1}, nil, `{"effects":{"op-1":1,"op-2":null}}`},
		{nil, nil, `{"effects":{"op-1":null,"op-2":null}}`},
		{Effects{"op-3": 1}, nil, `{"error":"sdk: effects for operation \"op-3\", which was not asked about"}`},
		{Effects{"op-1": 1<<53 + 1}, nil, `{"error":"sdk: effect 9007199254740993 of operation \"op-1\" is outside ±2^53"}`},
		{nil, errors.New("no"), `{"error":"no"}`},
	} {
		effects, err = c.effects, c.err
		if got := string(Handle(HookState, []byte(in))); got != c.want {
			t.Errorf("%v %v: %s, want %s", c.effects, c.err, got, c.want)
		}
	}
	if got := string(Handle(HookManifest, nil)); got != `{"abi":1,"name":"t","version":"1","hooks":["state"]}` {
		t.Errorf("manifest %s", got)
	}
}
