package main

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/campaign"
	"github.com/cuonztech/agent-harness/internal/refagent"
)

func TestParseCampaignFlags(t *testing.T) {
	o, err := parseCampaignFlags([]string{"--out", "r", "--scenarios", "f1,Chaos,f2", "--runs=3", "--seed", "-5",
		"--upstream-command", "node", "--upstream-arg", "dist/server.js", "--retry-after", "2", "--error-rate", "0.5",
		"--key-fields", "ref", "--ignore-idempotent-hint", "--variant", "base:", "--variant", "patched:PROMPT=p.txt,X=a=b",
		"--shard", "1/4", "--quiet", "--", "python", "agent.py", "--mcp-config", "{mcp_config}"})
	if err != nil {
		t.Fatal(err)
	}
	want := campaign.Plan{SchemaVersion: 1, Scenarios: []string{"F1", "chaos", "F2"}, Runs: 3, Seed: -5, ServerName: "harness",
		Variants:     []campaign.Variant{{Name: "base", Env: []string{}}, {Name: "patched", Env: []string{"PROMPT=p.txt", "X=a=b"}}},
		AgentCommand: []string{"python", "agent.py", "--mcp-config", "{mcp_config}"},
		ProxyArgs:    []string{"--upstream-command=node", "--upstream-arg=dist/server.js", "--key-fields=ref", "--ignore-idempotent-hint"},
		ScenarioArgs: map[string][]string{"F2": {"--retry-after=2"}, "chaos": {"--error-rate=0.5"}}}
	if !reflect.DeepEqual(o.plan, want) {
		t.Errorf("plan\n got %+v\nwant %+v", o.plan, want)
	}
	if o.out != "r" || o.gateVariant != "patched" || o.shard != (campaign.Shard{I: 1, N: 4}) || !o.quiet || o.parallel != 1 {
		t.Errorf("options %+v", o)
	}
	if _, err := parseCampaignFlags([]string{"--help"}); !errors.Is(err, errHelp) {
		t.Errorf("--help: %v", err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", "r", "--runs", "0", "--upstream-command", "x", "--", "a"}, "flag --runs: 0 is out of range"},
		{[]string{"--out", "r", "--runs", "1", "--runs", "2", "--upstream-command", "x", "--", "a"}, "flag --runs given twice"},
		{[]string{"--out", "r", "--out", "s", "--upstream-command", "x", "--", "a"}, "flag --out given twice"},
		{[]string{"--out", "--runs", "2", "--upstream-command", "x", "--", "a"}, "flag --out needs a value"},
		{[]string{"--out", "r", "--quiet=1", "--upstream-command", "x", "--", "a"}, "flag --quiet takes no value"},
		{[]string{"--out", "r", "--report-file", "f", "--upstream-command", "x", "--", "a"}, "flag --report-file: not in a campaign"},
		{[]string{"--out", "r", "--scenarios", "F1,F1", "--upstream-command", "x", "--", "a"}, "F1 given twice"},
		{[]string{"--out", "r", "--scenarios", "myfault", "--upstream-command", "x", "--", "a"}, "other names need a --plugin"},
		{[]string{"--out", "r", "--variant", "a:X=1", "--variant", "a:Y=1", "--upstream-command", "x", "--", "a"}, `variant "a" given twice`},
		{[]string{"--out", "r", "--gate-variant", "z", "--variant", "a:X=1", "--upstream-command", "x", "--", "a"}, `"z" is not a --variant`},
		{[]string{"--out", "r", "-q", "--upstream-command", "x", "--", "a"}, "flags start with --"},
		{[]string{"--out", "r", "stray", "--upstream-command", "x", "--", "a"}, "the agent command goes after --"},
		{[]string{"--out", "r", "--min-pass-rate", "1.5", "--upstream-command", "x", "--", "a"}, "out of range (0–1)"},
	} {
		_, err := parseCampaignFlags(c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.args, err, c.want)
		}
	}
}

func FuzzParseCampaignFlags(f *testing.F) {
	f.Add("--out\x00r\x00--scenarios\x00F1,chaos\x00--upstream-command\x00x\x00--\x00a\x00{mcp_config}")
	f.Add("--variant\x00b:K=V,L=W\x00--shard\x001/2\x00--min-pass-rate\x000.5\x00--out=o\x00--upstream-command=x\x00--\x00a")
	f.Add("--retry-after\x005\x00--scenarios\x00F2\x00--key-fields\x00a,b\x00--out\x00o\x00--upstream-command\x00x\x00--\x00a")
	f.Fuzz(func(t *testing.T, joined string) {
		args := strings.Split(joined, "\x00")
		o, err := parseCampaignFlags(args)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Errorf("error is not one line: %q", err)
			}
			return
		}
		if o.out == "" || len(o.plan.AgentCommand) == 0 || len(o.plan.Scenarios) == 0 || o.plan.Runs < 1 {
			t.Errorf("accepted an incomplete campaign: %+v", o)
		}
	})
}

func FuzzParseBehaviour(f *testing.F) {
	for _, s := range []string{"careful", "naive", "flaky:0.3", "flaky:1", "flaky:", "flaky:0x1p-2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := refagent.ParseBehaviour(s)
		if err == nil && !(b.NaiveP >= 0 && b.NaiveP <= 1) {
			t.Errorf("%q: probability %v", s, b.NaiveP)
		}
	})
}
