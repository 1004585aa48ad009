package relay

import (
	"testing"
	"time"
)

// The table of open requests on its own: upstream ids of the proxy's own,
// an open agent id refused, an answer taken once, an abandoned request's
// late answer recognised, and the idle wait woken by the last open request.
func TestRequestsTable(t *testing.T) {
	r := newRequests()
	a := &pending{kind: kindPlain, agentID: []byte(`"x"`)}
	keyA, ok := r.registerAgent(a, `"x"`, false)
	if !ok || string(a.upID) != "1" {
		t.Fatalf("first agent request: ok=%v upID=%s, want the upstream id 1", ok, a.upID)
	}
	if _, ok := r.registerAgent(&pending{kind: kindPlain}, `"x"`, false); ok {
		t.Fatal("a second request with an open agent id was registered")
	}
	if r.openCall(`"x"`, &callState{}) {
		t.Fatal("a tools/call with an open agent id was registered")
	}
	own := &pending{kind: kindWait}
	id, keyOwn := r.registerOwn(own)
	if string(id) != `"agent-harness/1"` {
		t.Fatalf("own id %s, want \"agent-harness/1\"", id)
	}

	idle := make(chan struct{})
	go func() {
		r.waitIdle(time.Hour)
		close(idle)
	}()

	if p, kind := r.take(keyA); p != a || kind != kindPlain {
		t.Fatalf("take: %v %v", p, kind)
	}
	if p, _ := r.take(keyA); p != nil {
		t.Fatal("an answer was taken twice")
	}
	if !r.openCall(`"x"`, &callState{}) {
		t.Fatal("the agent id is not free after its answer")
	}
	if cs, _ := r.byAgentID(`"x"`); cs == nil {
		t.Fatal("the open tools/call is not found by the agent's id")
	}
	r.abandon(keyOwn, own)
	if p, kind := r.take(keyOwn); p == nil || kind != kindAbandoned {
		t.Fatalf("late answer to an abandoned request: %v %v", p, kind)
	}
	select {
	case <-idle:
		t.Fatal("the idle wait ended while a tools/call is open")
	default:
	}
	r.answering(`"x"`)
	r.done()
	<-idle
}
