package relay

import (
	"context"
	"io"
	"sync/atomic"

	"github.com/cuonztech/agent-harness/internal/proc"
	"github.com/cuonztech/agent-harness/internal/wire"
)

// session is one relay run: one upstream, one agent. It wires the parts
// that each do one job — the open requests (requests), the tools
// (catalog), the lifecycle events (lifecycle), the writers to either side
// (lineWriter and holdBack to the agent, upWriter to the upstream) — to
// the readers of either side (agent.go, upstream.go) and the tools/calls
// (calls.go).
type session struct {
	opts    Options
	served  atomic.Bool // Options.OnServed was called
	log     *logger
	callCtx context.Context

	reqs *requests
	cat  *catalog
	life *lifecycle

	agentW *lineWriter
	hold   *holdBack              // the upstream's messages to the agent
	upW    *upWriter              // the messages to the upstream
	upR    func() ([]byte, error) // the upstream's next message

	// proc is the upstream process (nil for an in-process or Conn
	// upstream), tail the end of its stderr.
	proc *proc.Process
	tail tail

	// version is the protocol version of the upstream's initialize
	// result (nil before it); a SEP-2575 request carries its own.
	version    atomic.Pointer[string]
	warnedJSON atomic.Bool
	callSeq    atomic.Int64
	// requestsRead counts the agent's requests other than ping read so
	// far (ToolCall.RequestSeq).
	requestsRead atomic.Int64

	// baton hands the reading of the agent's input to a spare worker.
	baton chan struct{}
}

// upMsg is one message from the upstream with its envelope; agentID, when
// not nil, is the agent's own id that replaces the proxy's in env.ID.
type upMsg struct {
	line    []byte
	env     wire.Envelope
	agentID []byte
	// err, when set, is why line is the proxy's own error answer: a
	// tools/call's forward returns it (notOneMessage).
	err error
}

// newSession wires a session; agentOut takes the messages to the agent.
func newSession(ctx context.Context, opts Options, agentOut io.Writer) (*session, error) {
	s := &session{
		opts:    opts,
		log:     &logger{w: opts.Stderr, quiet: opts.Quiet},
		callCtx: context.WithoutCancel(ctx),
		reqs:    newRequests(),
		life:    newLifecycle(),
		baton:   make(chan struct{}),
	}
	cat, err := newCatalog(opts, s.log, s.reqs, s.life)
	if err != nil {
		return nil, err
	}
	cat.request = s.ownRequest
	s.cat = cat
	s.agentW = newLineWriter(agentOut, func(error) { s.life.markAgentGone() })
	s.agentW.halt = opts.Halt
	s.hold = &holdBack{w: s.agentW}
	return s, nil
}

// toAgent forwards one upstream message to the agent (see holdBack).
func (s *session) toAgent(line []byte) { s.hold.write(whole(line)) }

func isBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}
