package harness

import (
	"context"

	"github.com/cuonztech/agent-harness/internal/pipeline"
	"github.com/cuonztech/agent-harness/internal/state"
)

// probe is the session's state probe (behaviour §16): the command in the
// upstream's working directory and environment; nil without one.
func (c Config) probe() *pipeline.Probe {
	if c.State.Command == "" {
		return nil
	}
	p := state.Probe{Command: c.State.Command, Timeout: c.State.Timeout}
	if c.HTTP.UpstreamURL == "" {
		p.Dir, p.Env = c.Upstream.Dir, c.Upstream.Env
	}
	return &pipeline.Probe{
		Run:        func(at string) state.Snapshot { return p.Run(context.Background(), at) },
		EveryWrite: c.State.EveryWrite,
		Map:        c.State.Map,
	}
}
