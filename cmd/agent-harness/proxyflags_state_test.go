package main

import (
	"reflect"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/harness"
)

// TestProxyStateFlags: the --state-* flags reach harness.Config.State; each
// mistake is one usage line (exit 2) naming the flag (behaviour §16.1).
func TestProxyStateFlags(t *testing.T) {
	o, err := parseProxyFlags(withBase("--state-command", "agent-harness sample-server state s.jsonl",
		"--state-map", "create_booking=bookings", "--state-map=cancel_booking=cancellations",
		"--state-every-write", "--state-timeout", "2s"))
	if err != nil {
		t.Fatal(err)
	}
	want := harness.State{Command: "agent-harness sample-server state s.jsonl",
		Map:        map[string]string{"create_booking": "bookings", "cancel_booking": "cancellations"},
		EveryWrite: true, Timeout: 2 * time.Second}
	if got := proxyConfig(o).State; !reflect.DeepEqual(got, want) {
		t.Errorf("State = %+v, want %+v", got, want)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--state-map", "a=b"}, "flag --state-map: only with --state-command"},
		{[]string{"--state-every-write"}, "flag --state-every-write: only with --state-command"},
		{[]string{"--state-timeout", "1s"}, "flag --state-timeout: only with --state-command"},
		{[]string{"--state-command", " "}, "flag --state-command: the command is empty"},
		{[]string{"--state-command", "x", "--state-map", "create_booking"}, `flag --state-map: "create_booking" is not TOOL=COUNTER`},
		{[]string{"--state-command", "x", "--state-map", "a=b", "--state-map", "a=c"}, `flag --state-map: tool "a" is mapped twice (to "b" and "c")`},
		{[]string{"--state-command", "x", "--state-timeout", "0s"}, "flag --state-timeout: 0s is out of range (1ms–10m)"},
	} {
		wantUsageError(t, withBase(c.args...), c.want)
	}
}
