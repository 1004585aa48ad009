// Package campaign runs a user's agent many times through the proxy and
// reports how often it was safe (behaviour §9): the plan and its runs, each
// run's isolated directory and process group, the statistics and the
// files of a campaign, resume, shards and their merge.
package campaign

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/cuonztech/agent-harness/internal/reportfile"
)

// PlanVersion is the version of plan.json's shape.
const PlanVersion = 1

// Plan is everything that changes what a run does; it is stored in
// OUT/plan.json and must be equal to resume a campaign or merge shards.
type Plan struct {
	SchemaVersion int `json:"schemaVersion"`
	// Scenarios in order: F1–F5, "chaos", or plugin fault names.
	Scenarios []string `json:"scenarios"`
	// Runs per scenario and variant.
	Runs int `json:"runs"`
	// Variants in order; empty = one unnamed variant.
	Variants []Variant `json:"variants"`
	// Seed derives every run's seed and the order of the runs.
	Seed int64 `json:"seed"`
	// ServerName is the name of the proxy's entry in mcp.json.
	ServerName string `json:"serverName"`
	// AgentCommand is the agent's command line with its placeholders.
	AgentCommand []string `json:"agentCommand"`
	// ProxyArgs are the upstream and judging flags given to every run's
	// proxy, as --name=value words.
	ProxyArgs []string `json:"proxyArgs"`
	// ScenarioArgs are extra proxy flags for the runs of one scenario
	// (--retry-after for F2, --error-rate for chaos).
	ScenarioArgs map[string][]string `json:"scenarioArgs"`
	// AgentTransport is how the agent reaches its proxy: "" (stdio: the
	// agent starts the proxy from mcp.json) or "http" (the campaign starts
	// the proxy with --listen 127.0.0.1:0 and mcp.json names its URL).
	AgentTransport string `json:"agentTransport,omitempty"`
}

// Variant is one arm of an A/B comparison: extra environment variables for
// the agent.
type Variant struct {
	Name string   `json:"name"`
	Env  []string `json:"env"` // KEY=VALUE
}

// Unit is one run of the plan.
type Unit struct {
	Variant  string // "" without variants
	Scenario string
	N        int   // 1-based within scenario and variant
	Index    int   // position in the plan's canonical order
	Seed     int64 // the run's seed (agent, chaos)
}

// Dir is the unit's directory relative to OUT.
func (u Unit) Dir() string {
	if u.Variant == "" {
		return filepath.Join("runs", u.Scenario, strconv.Itoa(u.N))
	}
	return filepath.Join("runs", u.Variant, u.Scenario, strconv.Itoa(u.N))
}

// Label is the run's short name in progress lines: F1#3 or B/F1#3.
func (u Unit) Label() string {
	l := u.Scenario + "#" + strconv.Itoa(u.N)
	if u.Variant != "" {
		l = u.Variant + "/" + l
	}
	return l
}

// Shard selects the I-th of N disjoint slices of a plan (0 ≤ I < N).
type Shard struct{ I, N int }

// Units returns the plan's runs in canonical order: variant, scenario, n.
func (p *Plan) Units() []Unit {
	variants := p.variantNames()
	var us []Unit
	for _, v := range variants {
		for _, s := range p.Scenarios {
			for n := 1; n <= p.Runs; n++ {
				us = append(us, Unit{Variant: v, Scenario: s, N: n, Index: len(us), Seed: runSeed(p.Seed, v, s, n)})
			}
		}
	}
	return us
}

func (p *Plan) variantNames() []string {
	if len(p.Variants) == 0 {
		return []string{""}
	}
	names := make([]string, len(p.Variants))
	for i, v := range p.Variants {
		names[i] = v.Name
	}
	return names
}

// Schedule returns the units of shard sh in the order they run: a
// permutation of the plan drawn from the seed (so that a partial campaign
// covers every scenario evenly), keeping the units whose canonical index is
// sh.I modulo sh.N.
func (p *Plan) Schedule(sh Shard) []Unit {
	us := p.Units()
	rng := rand.New(rand.NewPCG(uint64(p.Seed), 0x0de7_0f_2a45))
	var out []Unit
	for _, i := range rng.Perm(len(us)) {
		if sh.N <= 1 || us[i].Index%sh.N == sh.I {
			out = append(out, us[i])
		}
	}
	return out
}

// runSeed derives a run's seed from the campaign seed and the run's
// identity (not its position), so shards, resumes and merges agree. It is
// non-negative so that it reads the same as a signed or unsigned integer.
func runSeed(seed int64, variant, scenario string, n int) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%d", variant, scenario, n)
	return int64(splitmix64(uint64(seed)^h.Sum64()) >> 1)
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// ErrPlanMismatch: OUT holds another campaign.
var ErrPlanMismatch = errors.New("a different plan")

// planFile is OUT/plan.json.
func planFile(out string) string { return filepath.Join(out, "plan.json") }

// encodePlan is the stored form of a plan (stable: fields in order,
// indented).
func encodePlan(p *Plan) []byte {
	b, _ := json.MarshalIndent(p, "", "  ")
	return append(b, '\n')
}

// LoadPlan reads OUT/plan.json.
func LoadPlan(out string) (*Plan, error) {
	b, err := os.ReadFile(planFile(out))
	if err != nil {
		return nil, err
	}
	var p Plan
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: %w", planFile(out), err)
	}
	if p.SchemaVersion != PlanVersion {
		return nil, fmt.Errorf("%s: schemaVersion %d, this version reads %d", planFile(out), p.SchemaVersion, PlanVersion)
	}
	return &p, nil
}

// PrepareOut makes OUT ready for plan p: a new or empty directory gets
// plan.json; a directory holding the same plan is resumed; a directory
// with another plan, or other files and no plan, is an error wrapping
// ErrPlanMismatch.
func PrepareOut(out string, p *Plan) error {
	// Missing parents are made first (behaviour §5.2); a file in the way is
	// named in plain words, wrapping reportfile.ErrNoDirectory.
	if err := reportfile.MakeDir(out); err != nil {
		return err
	}
	old, err := LoadPlan(out)
	switch {
	case err == nil:
		if diff := planDiff(old, p); diff != "" {
			return fmt.Errorf("%w: %s holds a campaign whose %s differs; use another --out or delete it", ErrPlanMismatch, out, diff)
		}
		return nil
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%w: %v", ErrPlanMismatch, err)
	}
	if entries, err := os.ReadDir(out); err == nil && len(entries) > 0 {
		return fmt.Errorf("%w: %s is not empty and holds no plan.json (not a campaign directory)", ErrPlanMismatch, out)
	}
	return reportfile.Replace(planFile(out), encodePlan(p))
}

// planDiff names the first part of the plan that differs, "" when equal.
func planDiff(a, b *Plan) string {
	field := func(v any) string { x, _ := json.Marshal(v); return string(x) }
	switch {
	case field(a.Scenarios) != field(b.Scenarios):
		return "scenarios"
	case a.Runs != b.Runs:
		return "number of runs"
	case field(a.Variants) != field(b.Variants):
		return "variants"
	case a.Seed != b.Seed:
		return "seed"
	case a.ServerName != b.ServerName:
		return "server name"
	case field(a.AgentCommand) != field(b.AgentCommand):
		return "agent command"
	case field(a.ProxyArgs) != field(b.ProxyArgs) || field(a.ScenarioArgs) != field(b.ScenarioArgs):
		return "upstream or judging flags"
	case !bytes.Equal(encodePlan(a), encodePlan(b)):
		return "plan"
	}
	return ""
}
