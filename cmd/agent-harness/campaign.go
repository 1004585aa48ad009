package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cuonztech/agent-harness/internal/campaign"
	"github.com/cuonztech/agent-harness/internal/escape"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/report"
	"github.com/cuonztech/agent-harness/internal/reportfile"
)

// campaignOptions are the validated flags of `agent-harness campaign`.
type campaignOptions struct {
	plan         campaign.Plan
	out          string
	parallel     int
	agentTimeout time.Duration
	minPassRate  float64
	maxNotTested float64
	// minHonestyRate is --min-honesty-rate, checked only when honestySet.
	minHonestyRate float64
	honestySet     bool
	gateVariant    string
	shard          campaign.Shard
	shardSet       bool
	quiet          bool
	// pass are the proxy flags for every run's proxy, as --name=value.
	pass []string
}

// campaignFlags defines the campaign's own flags on o, in the order of its
// --help; the proxy's upstream and judging flags are passed through to
// every run's proxy (campaignFlagSet).
func campaignFlags(s *flagSet, o *campaignOptions) {
	s.value(funcValue(func(v string) error {
		items, err := commaList(v, true)
		if err != nil {
			return err
		}
		o.plan.Scenarios = nil
		for _, s := range items {
			if b, ok := fault.Lookup(s); ok {
				s = b.Name
			} else if !isName(s) {
				return fmt.Errorf("%q is not a scenario name (%s, chaos, or a plugin fault name)", s, fault.ScenarioRange())
			}
			for _, have := range o.plan.Scenarios {
				if have == s {
					return fmt.Errorf("%s given twice", s)
				}
			}
			o.plan.Scenarios = append(o.plan.Scenarios, s)
		}
		return nil
	}), "scenarios", "LIST", strings.Join(fault.Scenarios(), ","), "comma-separated scenarios: "+fault.ScenarioRange()+" (any case), chaos, or fault names of a --plugin")
	s.value(intValue{&o.plan.Runs, 1, 100000, "runs"}, "runs", "N", "10", "runs per scenario (and variant), 1–100000")
	s.value(intValue{&o.parallel, 1, 256, "runs"}, "parallel", "N", "1", "runs at the same time, 1–256")
	s.text(&o.out, "out", "DIR", "", "campaign directory (required): plan, runs, results; the same DIR resumes")
	s.value(funcValue(func(v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not a 64-bit integer", v)
		}
		o.plan.Seed = n
		return nil
	}), "seed", "N", "1", "derives every run's seed (agent, chaos) and the order of the runs")
	s.value(funcValue(func(v string) error {
		if !isName(v) {
			return fmt.Errorf("%q is not a name (letters, digits, _ . -)", v)
		}
		o.plan.ServerName = v
		return nil
	}), "server-name", "NAME", "harness", "name of the proxy's entry in mcp.json")
	s.value(durationValue{&o.agentTimeout, time.Millisecond, 24 * time.Hour, "1ms–24h"}, "agent-timeout", "DURATION", "10m", "stop an agent (its process group) after this long, 1ms–24h")
	s.value(funcValue(func(v string) error {
		switch strings.ToLower(v) {
		case "stdio":
			o.plan.AgentTransport = ""
			return nil
		case "http":
			o.plan.AgentTransport = "http"
			return nil
		}
		return fmt.Errorf("%q is not stdio or http", v)
	}), "agent-transport", "stdio|http", "stdio", "how the agent reaches its proxy: stdio (the agent starts it from mcp.json) or http (the campaign starts it with --listen; mcp.json names its URL)")
	s.list(funcValue(func(v string) error {
		name, env, _ := strings.Cut(v, ":")
		if !isName(name) {
			return fmt.Errorf("%q: NAME must be letters, digits, _ . - (NAME:KEY=VALUE,...)", v)
		}
		for _, have := range o.plan.Variants {
			if have.Name == name {
				return fmt.Errorf("variant %q given twice", name)
			}
		}
		vr := campaign.Variant{Name: name, Env: []string{}}
		if env != "" {
			items, err := commaList(env, false)
			if err != nil {
				return err
			}
			for _, kv := range items {
				k, _, ok := strings.Cut(kv, "=")
				if !ok || !isEnvName(k) {
					return fmt.Errorf("%q is not KEY=VALUE with KEY of letters, digits and _", kv)
				}
				vr.Env = append(vr.Env, kv)
			}
		}
		o.plan.Variants = append(o.plan.Variants, vr)
		return nil
	}), "variant", "NAME:K=V,...", "", "an A/B variant: the whole matrix again with these environment variables for the agent, repeatable")
	gateFlags(s, o)
	s.text(&o.gateVariant, "gate-variant", "NAME", "the last --variant", "the variant the gate looks at")
	s.value(funcValue(func(v string) error {
		i, n, ok := strings.Cut(v, "/")
		ii, err1 := strconv.Atoi(i)
		nn, err2 := strconv.Atoi(n)
		if !ok || err1 != nil || err2 != nil || nn < 1 || nn > 100000 || ii < 0 || ii >= nn {
			return fmt.Errorf("%q is not I/N with 0 ≤ I < N ≤ 100000", v)
		}
		o.shard, o.shardSet = campaign.Shard{I: ii, N: nn}, true
		return nil
	}), "shard", "I/N", "", "run only the I-th (0…N−1) of N disjoint slices of the plan")
	s.toggle(&o.quiet, "quiet", "print the summary only (no line per run, no status line)")
	s.helpAndVersion("print this help and exit", "print the version and exit")
}

// gateFlags defines the gate's thresholds, the campaign's and campaign
// merge's.
func gateFlags(s *flagSet, o *campaignOptions) {
	share := func(p *float64) funcValue {
		return func(v string) error {
			f, err := shareFlag(v)
			*p = f
			return err
		}
	}
	s.value(share(&o.minPassRate), "min-pass-rate", "R", "1.0", "gate: exit 1 when some scenario's PASS rate over its judged runs is below R (0–1)")
	s.value(share(&o.maxNotTested), "max-not-tested", "R", "0", "gate: exit 3 when some scenario's share of NOT_TESTED runs is above R (0–1)")
	s.value(funcValue(func(v string) error {
		f, err := shareFlag(v)
		o.minHonestyRate, o.honestySet = f, true
		return err
	}), "min-honesty-rate", "R", "off", "gate: exit 1 when some scenario's accurate-or-disclosed rate over its runs with honesty measured is below R (0–1); exit 3 when it has no such run")
}

// shareFlag reads a share from 0 to 1 (--min-pass-rate, --max-not-tested).
func shareFlag(v string) (float64, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || strings.ContainsAny(v, "xXpP_") {
		return 0, fmt.Errorf("%q is not a number", v)
	}
	if f < 0 || f > 1 {
		return 0, fmt.Errorf("%s is out of range (0–1)", v)
	}
	return f, nil
}

// reservedProxyFlags are proxy flags a campaign sets itself for each run.
var reservedProxyFlags = map[string]string{
	"scenario":    "use --scenarios",
	"mode":        "add chaos to --scenarios",
	"report-file": "each run writes OUT/runs/…/report.json",
	"audit-tools": "each run's proxy has --audit-tools off",
	"trace":       "each run writes OUT/runs/…/trace.jsonl",
	"no-replace":  "each run's proxy has it: every proxy process keeps its own report",
	"listen":      "use --agent-transport http",
}

// campaignFlagSet is the campaign's command line: its own flags, then
// every proxy flag it does not have itself, passed through to each run's
// proxy (checked there, by parseProxyFlags), or refused with the reason
// when the campaign sets it (hidden: not suggested).
func campaignFlagSet(o *campaignOptions) *flagSet {
	s := newFlagSet("campaign")
	campaignFlags(s, o)
	ps := proxyFlagSet(&proxyOptions{}, &parseState{})
	for _, name := range ps.names() {
		if _, own := s.meta[name]; own {
			continue
		}
		arg := ps.meta[name].arg
		pass := funcValue(func(v string) error {
			if arg == "" {
				o.pass = append(o.pass, "--"+name)
			} else {
				o.pass = append(o.pass, "--"+name+"="+v)
			}
			return nil
		})
		why := reservedProxyFlags[name]
		if why != "" {
			pass = func(string) error { return fmt.Errorf("not in a campaign (%s)", why) }
		}
		s.list(pass, name, arg, "", ps.fs.Lookup(name).Usage)
		s.fs.Lookup(name).Hidden = why != ""
	}
	s.positional = func(a string) error {
		return usagef("unexpected argument %s (the agent command goes after --: agent-harness campaign [flags] -- AGENT [ARGS...])", quoteArg(a))
	}
	return s
}

func isEnvName(s string) bool {
	if s == "" || '0' <= s[0] && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// cutAtDashes splits the campaign's command line at the first `--`: the
// flags before it, the agent command and its arguments after it. No flag
// takes `--` as its value (a value starting with -- never is one), so the
// first `--` is always the separator.
func cutAtDashes(args []string) (flags, command []string, hasCommand bool) {
	for i, a := range args {
		if a == "--" {
			return args[:i], args[i+1:], true
		}
	}
	return args, nil, false
}

// parseCampaignFlags parses `campaign [FLAGS] -- AGENT [ARGS...]`. Its own
// flags follow the proxy's dialect (--flag value or --flag=value, a value
// never starts with --, a single-value flag once); the proxy's upstream and
// judging flags are checked by the proxy's own parser, once per scenario,
// exactly as each run's proxy will get them.
func parseCampaignFlags(args []string) (campaignOptions, error) {
	flags, agent, hasAgent := cutAtDashes(args)
	o := campaignOptions{parallel: 1, agentTimeout: 10 * time.Minute, minPassRate: 1}
	o.plan = campaign.Plan{SchemaVersion: campaign.PlanVersion, Scenarios: fault.Scenarios(),
		Runs: 10, Seed: 1, ServerName: "harness", Variants: []campaign.Variant{}, ScenarioArgs: map[string][]string{}}
	s := campaignFlagSet(&o)
	_, err := s.parse(flags)
	switch {
	case err != nil:
		return o, err
	case o.out == "":
		return o, campaignUsagef("flag --out is required")
	case !hasAgent || len(agent) == 0 || agent[0] == "":
		return o, campaignUsagef("no agent command: give it after --: agent-harness campaign [flags] -- AGENT [ARGS...]")
	}
	for i, w := range agent {
		if strings.IndexByte(w, 0) >= 0 {
			return o, campaignUsagef("word %d of the agent command contains a NUL byte", i+1)
		}
	}
	o.plan.AgentCommand = append([]string(nil), agent...)
	if err := campaignProxyArgs(&o, o.pass); err != nil {
		return o, err
	}
	if o.gateVariant == "" && len(o.plan.Variants) > 0 {
		o.gateVariant = o.plan.Variants[len(o.plan.Variants)-1].Name
	}
	if s.given("gate-variant") && !hasVariant(o.plan.Variants, o.gateVariant) {
		return o, campaignUsagef("flag --gate-variant: %q is not a --variant", o.gateVariant)
	}
	return o, nil
}

func hasVariant(vs []campaign.Variant, name string) bool {
	for _, v := range vs {
		if v.Name == name {
			return true
		}
	}
	return false
}

// campaignUsagef is a usage error of the campaign.
func campaignUsagef(format string, args ...any) error {
	return usageError{cmd: "campaign", msg: escape.Line(fmt.Sprintf(format, args...))}
}

// campaignProxyArgs stores the passed-through proxy flags in the plan and
// checks them with the proxy's parser for every scenario. --retry-after
// goes to the F2 runs only, --error-rate to the chaos runs only.
func campaignProxyArgs(o *campaignOptions, pass []string) error {
	hasUpstream := false
	o.plan.ProxyArgs = []string{}
	for _, a := range pass {
		name, _, _ := strings.Cut(a[2:], "=")
		switch name {
		case "retry-after":
			if !containsString(o.plan.Scenarios, "F2") {
				return campaignUsagef("flag --retry-after: only with F2 in --scenarios")
			}
			o.plan.ScenarioArgs["F2"] = append(o.plan.ScenarioArgs["F2"], a)
		case "error-rate":
			if !containsString(o.plan.Scenarios, "chaos") {
				return campaignUsagef("flag --error-rate: only with chaos in --scenarios")
			}
			o.plan.ScenarioArgs["chaos"] = append(o.plan.ScenarioArgs["chaos"], a)
		default:
			hasUpstream = hasUpstream || name == "upstream-command"
			o.plan.ProxyArgs = append(o.plan.ProxyArgs, a)
		}
	}
	if !hasUpstream {
		return campaignUsagef("flag --upstream-command is required (the MCP server each run's proxy starts)")
	}
	for _, s := range o.plan.Scenarios {
		args := []string{"--scenario", s}
		if s == "chaos" {
			args = []string{"--mode", "chaos", "--seed", "1"}
		}
		args = append(append(args, o.plan.ScenarioArgs[s]...), o.plan.ProxyArgs...)
		if _, err := parseProxyFlags(args); err != nil {
			var ue usageError
			if errors.As(err, &ue) {
				return usageError{cmd: "campaign", msg: ue.msg}
			}
			return campaignUsagef("%s", err)
		}
	}
	return nil
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// runCampaign is `agent-harness campaign` (behaviour §9).
func runCampaign(ctx context.Context, args []string, std stdio) error {
	stdout, stderr := std.out, std.err
	if len(args) > 0 && args[0] == "merge" {
		return inCmd("campaign merge", runCampaignMerge(ctx, args[1:], std))
	}
	o, err := parseCampaignFlags(args)
	if err != nil {
		return withUsage(err, campaignUsage)
	}
	out, err := filepath.Abs(o.out)
	if err != nil {
		return usagef("flag --out: %s", err)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find the agent-harness binary to start as proxy: %w", err)
	}
	if err := campaign.PrepareOut(out, &o.plan); err != nil {
		if errors.Is(err, campaign.ErrPlanMismatch) || errors.Is(err, reportfile.ErrNoDirectory) {
			return usagef("flag --out: %s", err)
		}
		return fmt.Errorf("flag --out: %w", err)
	}
	ctx, stopSignals, caught := withStopSignals(ctx)
	defer stopSignals()

	// Processes of a run that leave its process group (a detached proxy)
	// become the campaign's children when their parent ends, so the run
	// finds and stops them (Linux; elsewhere they go to init).
	_ = campaign.AdoptOrphans()
	units := o.plan.Schedule(o.shard)
	runner := &campaign.Runner{Plan: &o.plan, Out: out, Proxy: self, Env: os.Environ(), AgentTimeout: o.agentTimeout}
	progress := &campaign.Progress{W: stderr, TTY: isTerminal(stderr), Quiet: o.quiet}
	recs, _, runErr := runner.RunAll(ctx, units, o.parallel, progress.Hooks())
	progress.Stop()

	planned := map[[2]string]int{}
	for _, u := range units {
		planned[[2]string{u.Variant, u.Scenario}]++
	}
	s := campaign.Summarize(&o.plan, recs, func(v, sc string) int { return planned[[2]string{v, sc}] })
	s.HarnessVersion = report.HarnessVersion
	s.Complete = len(recs) == len(units)
	if o.shardSet {
		s.Shard = fmt.Sprintf("%d/%d", o.shard.I, o.shard.N)
	}
	s.Gate = campaign.Decide(&s, o.gateVariant, o.minPassRate, o.maxNotTested)
	if o.honestySet {
		campaign.DecideHonesty(&s.Gate, &s, o.gateVariant, o.minHonestyRate)
	}
	if !s.Complete {
		// An interrupted campaign's gate is never 0, in every file and on
		// stdout, as a merge with runs missing (behaviour §9.4).
		why := "interrupted"
		if runErr != nil && !errors.Is(runErr, campaign.ErrInterrupted) {
			why = "stopped by an error"
		}
		campaign.GateIncomplete(&s.Gate, fmt.Sprintf("%d of %d runs unfinished (the campaign was %s; start again with the same command to run the rest)",
			len(units)-len(recs), len(units), why))
	}
	if err := campaign.WriteFiles(out, &s); err != nil {
		return fmt.Errorf("writing the results: %w", err)
	}
	printCampaignSummary(stdout, &s, out)
	switch {
	case runErr != nil && !errors.Is(runErr, campaign.ErrInterrupted):
		return fmt.Errorf("%w (finished runs are kept; start again with the same --out to resume)", runErr)
	case runErr != nil:
		code := 130
		if sig, ok := caught().(syscall.Signal); ok {
			code = 128 + int(sig)
		}
		return exitError{code: code, msg: fmt.Sprintf("interrupted: %d of %d runs finished, kept in %s; start again with the same command to run the rest", len(recs), len(units), out)}
	}
	return exitCode(s.Gate.ExitCode)
}

// runCampaignMerge is `agent-harness campaign merge DIR... --out DIR`.
func runCampaignMerge(_ context.Context, args []string, std stdio) error {
	stdout := std.out
	out, gate := "", ""
	var o campaignOptions
	o.minPassRate = 1.0
	allowIncomplete := false
	fs := newFlagSet("campaign merge")
	fs.text(&out, "out", "DIR", "", "the merged campaign directory (required)")
	gateFlags(fs, &o)
	fs.text(&gate, "gate-variant", "NAME", "the last variant", "the variant the gate looks at")
	fs.toggle(&allowIncomplete, "allow-incomplete", "merge the runs that are there when some are missing (the exit code stays 3 or 1, never 0)")
	fs.toggle(new(bool), "quiet", "accepted for symmetry: a merge prints only its summary")
	fs.helpAndVersion("print this help and exit", "print the version and exit")
	dirs, err := fs.parse(args)
	if err != nil {
		return withUsage(err, func() string {
			return "Usage: agent-harness campaign merge DIR... --out DIR [--min-pass-rate R] [--max-not-tested R] [--min-honesty-rate R] [--gate-variant NAME] [--allow-incomplete] [--quiet]\n\n" +
				"Combines the directories of the shards of one campaign (--shard I/N, same plan) into\n" +
				"one campaign directory with the statistics, files and gate of an unsharded run.\n" +
				"When runs of the plan are missing (a lost shard) it merges nothing and exits 3\n" +
				"naming the missing slices; --allow-incomplete merges what is there, exit 3 all the\n" +
				"same (1 when the gate fails on the runs that are there).\n\n" + fs.usage()
		})
	}
	switch {
	case out == "":
		return usagef("flag --out is required")
	case len(dirs) == 0:
		return usagef("no campaign directory to merge: agent-harness campaign merge DIR... --out DIR")
	}
	plan, recs, missing, err := campaign.Merge(dirs, out, allowIncomplete)
	if err != nil {
		switch {
		case errors.Is(err, campaign.ErrPlanMismatch) || errors.Is(err, os.ErrNotExist):
			return usagef("%s", err)
		case errors.Is(err, campaign.ErrIncomplete):
			return exitError{code: 3, msg: err.Error()}
		}
		return err
	}
	if gate == "" && len(plan.Variants) > 0 {
		gate = plan.Variants[len(plan.Variants)-1].Name
	} else if gate != "" && !hasVariant(plan.Variants, gate) {
		return usagef("flag --gate-variant: %q is not a variant of the campaign", gate)
	}
	s := campaign.Summarize(plan, recs, func(string, string) int { return plan.Runs })
	s.HarnessVersion = report.HarnessVersion
	s.Complete = missing == ""
	s.Gate = campaign.Decide(&s, gate, o.minPassRate, o.maxNotTested)
	if o.honestySet {
		campaign.DecideHonesty(&s.Gate, &s, gate, o.minHonestyRate)
	}
	if missing != "" {
		campaign.GateIncomplete(&s.Gate, missing)
	}
	if err := campaign.WriteFiles(out, &s); err != nil {
		return fmt.Errorf("writing the results: %w", err)
	}
	printCampaignSummary(stdout, &s, out)
	return exitCode(s.Gate.ExitCode)
}

// printCampaignSummary prints the per-scenario tables, the comparisons and
// the gate on stdout.
func printCampaignSummary(w io.Writer, s *campaign.Summary, out string) {
	for _, v := range s.Variants {
		if v.Name != "" {
			fmt.Fprintf(w, "variant %s\n", v.Name)
		}
		fmt.Fprint(w, campaign.TableText(v))
		fmt.Fprintln(w)
	}
	for _, c := range s.Comparisons {
		if c.Difference == nil {
			fmt.Fprintf(w, "%s: %s vs %s: no judged runs to compare\n", c.Scenario, c.Variant, c.Baseline)
			continue
		}
		fmt.Fprintf(w, "%s: %s − %s PASS rate %+.1f pp [95 %% CI %+.1f, %+.1f], Fisher p = %.4g\n", c.Scenario, c.Variant,
			c.Baseline, 100**c.Difference, 100*c.Interval.Low, 100*c.Interval.High, *c.FisherP)
	}
	for _, line := range campaign.HonestyLines(s) {
		fmt.Fprintln(w, line)
	}
	if !s.Complete {
		fmt.Fprintln(w, "incomplete: not every planned run has finished")
	}
	fmt.Fprintf(w, "gate: exit %d — %s\n", s.Gate.ExitCode, escape.Line(s.Gate.Reason)) // peer text in the reasons
	fmt.Fprintf(w, "results: %s (campaign.json, campaign.md, junit.xml, patches.md)\n", out)
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// campaignUsage is the text of `agent-harness campaign --help`.
func campaignUsage() string {
	var b strings.Builder
	b.WriteString(`Usage: agent-harness campaign [flags] --out DIR --upstream-command CMD [--upstream-arg ARG ...] -- AGENT [ARGS...]
       agent-harness campaign merge DIR... --out DIR

Runs the agent command many times per scenario, each run with its own proxy
(started by the agent from OUT/runs/<scenario>/<n>/mcp.json) and its own
upstream, and reports PASS rates with 95 % intervals. The agent finds the
proxy through the placeholders {mcp_config} {mcp_url} {server_name}
{scenario} {run} {run_dir} in its arguments, or the environment variables
AGENT_HARNESS_MCP_CONFIG, _MCP_URL, _SERVER_NAME, _SCENARIO, _RUN, _RUN_DIR
and AGENT_HARNESS_SEED. An agent reports what it told its user (honesty) by
writing {"claim": "SUCCEEDED"|"FAILED"|"UNKNOWN", "message": "..."} to
AGENT_HARNESS_CLAIM_FILE (the run's claim.json).

Campaign flags:
`)
	own := newFlagSet("campaign")
	campaignFlags(own, &campaignOptions{})
	b.WriteString(own.usage())
	b.WriteString(`
Every flag of "agent-harness proxy --help" except --scenario, --mode,
--report-file, --audit-tools, --seed and --quiet is passed to each run's
proxy: the upstream (--upstream-command, --upstream-arg, ...), classification
and key fields, --retry-after (F2 runs), --error-rate (chaos runs), plugins.

Exit codes: 1 some scenario's PASS rate over its judged runs is below
--min-pass-rate, or its accurate-or-disclosed rate below --min-honesty-rate
(or the campaign could not run); otherwise 3 some scenario's share of
NOT_TESTED runs is above --max-not-tested (default 0: a NOT_TESTED run is
never a safe one), it has no judged run, or (with --min-honesty-rate) no run
with honesty measured; otherwise 0; 2 usage;
128+N interrupted by signal N (finished runs are kept: start again with the
same command to resume). The gate line names every failing scenario and
counts its NOT_TESTED runs by kind.
`)
	return b.String()
}
