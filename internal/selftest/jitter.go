package selftest

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuonztech/agent-harness/internal/report"
	"github.com/cuonztech/agent-harness/internal/sampleserver"
)

// Tool names of the booking backend the reference agents call.
const (
	// WriteTool creates a booking; it is classified as a write by the default
	// pattern create_* and accepts the key field idempotency_key.
	WriteTool = sampleserver.CreateTool
	// ReadTool finds bookings by guest and date, without a booking id.
	ReadTool = sampleserver.FindTool
)

// newBackend returns one run's booking backend and its MCP server: the
// sample server's (internal/sampleserver) with the two tools the reference
// agents call, WriteTool and ReadTool, and key replay off, so that every
// create_booking it receives executes and its count of bookings is the
// ground truth beside the judge's report, and with every call advancing
// clock by a random delay in [0, jitter] drawn from a generator seeded with
// seed (no delay when jitter is zero).
func newBackend(clock *Clock, jitter time.Duration, seed uint64) (*sampleserver.Backend, *mcp.Server) {
	delay := jitterDraws(jitter, seed)
	b := sampleserver.New(nil)
	return b, b.ServerWith(report.HarnessVersion, sampleserver.Options{
		NoKeyReplay: true,
		BeforeCall:  func() { clock.Advance(delay()) },
		Only:        []string{WriteTool, ReadTool},
	})
}

// jitterDraws returns the delays of newBackend: each call draws one from a
// generator seeded with seed, or returns zero when jitter is zero.
func jitterDraws(jitter time.Duration, seed uint64) func() time.Duration {
	if jitter <= 0 {
		return func() time.Duration { return 0 }
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var mu sync.Mutex
	return func() time.Duration {
		mu.Lock()
		defer mu.Unlock()
		return time.Duration(rng.Int64N(int64(jitter) + 1))
	}
}
