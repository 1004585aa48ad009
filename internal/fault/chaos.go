package fault

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cuonztech/agent-harness/internal/classify"
)

// nameChaos is chaos's --mode name.
const nameChaos = "chaos"

func init() {
	register(Builtin{
		Name: nameChaos, Mode: true, Kind: KindChaos, Text: ServerErrorText,
		FiresOn: "each read and write, with probability --error-rate",
		New:     newChaos,
	})
}

// newChaos is chaos's constructor: opts.Seed and opts.ErrorRate, checked.
func newChaos(opts Options) (Fault, error) {
	r := opts.ErrorRate
	if math.IsNaN(r) || r < 0 || r > 1 {
		return nil, fmt.Errorf("creating chaos: error rate %v is not between 0 and 1", r)
	}
	return NewChaos(opts.Seed, r), nil
}

// Chaos is --mode chaos: every read and write call, idempotent writes
// included, fails with the generic server error with probability ErrorRate
// and is not forwarded (no ghost writes). Calls of unclassified tools and of tools the upstream did not
// list are never faulted, like for every scenario (behaviour §2.2).
//
// The draw for a call depends only on the seed and the call's ID: a PCG
// generator seeded with (seed, mixed call ID) yields one number. So the same
// seed and the same call sequence give the same faults, and concurrent
// calls cannot change each other's draws (there is no shared stream whose
// order would depend on scheduling).
type Chaos struct {
	seed   uint64
	rate   float64
	result json.RawMessage
}

// NewChaos returns a chaos fault with the given seed and error rate (0–1;
// New checks the range).
func NewChaos(seed uint64, errorRate float64) *Chaos {
	return &Chaos{seed: seed, rate: errorRate, result: ErrorResult(ServerErrorText)}
}

// Name returns "chaos".
func (*Chaos) Name() string { return nameChaos }

// Seed returns the seed of the draws.
func (f *Chaos) Seed() uint64 { return f.seed }

// ErrorRate returns the probability of a fault per call.
func (f *Chaos) ErrorRate() float64 { return f.rate }

// Decide injects the server error when the call's draw falls below the
// error rate.
func (f *Chaos) Decide(c Call) Action {
	if c.Class != classify.Read && c.Class != classify.Write {
		return Action{}
	}
	if f.draw(c.ID) >= f.rate {
		return Action{}
	}
	return Action{Kind: Inject, Result: f.result, Scenario: nameChaos, Fault: KindChaos}
}

// draw returns the call's number in [0, 1).
func (f *Chaos) draw(id int64) float64 {
	var g rand.PCG
	g.Seed(f.seed, splitmix64(uint64(id)))
	return float64(g.Uint64()>>11) / (1 << 53)
}

// splitmix64 spreads consecutive call IDs over the whole 64-bit range
// before they seed the generator.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
