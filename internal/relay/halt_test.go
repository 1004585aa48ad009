package relay

import (
	"bytes"
	"errors"
	"testing"
)

// Once Options.Halt is closed, nothing more reaches the agent: the proxy is
// stopping after a failure the agent must not see answered.
func TestAgentWriterHalt(t *testing.T) {
	var out bytes.Buffer
	halt := make(chan struct{})
	lw := newLineWriter(&out, func(error) { t.Error("a halt is no write failure") })
	lw.halt = halt
	if err := lw.write([]byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	close(halt)
	if err := lw.write([]byte(`{"b":2}`)); !errors.Is(err, errWriterHalted) {
		t.Errorf("write after the halt: %v, want errWriterHalted", err)
	}
	if err := lw.writeFault(whole([]byte(`{"c":3}`)), TransportFault{Kind: "timeout"}); !errors.Is(err, errWriterHalted) {
		t.Errorf("fault write after the halt: %v, want errWriterHalted", err)
	}
	if out.String() != "{\"a\":1}\n" {
		t.Errorf("agent got %q, want only the message before the halt", out.String())
	}
}
