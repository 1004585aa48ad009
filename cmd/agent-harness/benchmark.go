package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/reportfile"
	"github.com/cuonztech/agent-harness/internal/selftest"
)

// breakEnv names the benchmark's test hook: when set, the self-test runs
// with a deliberately broken judge so tests can prove that the self-test
// can fail. It is read by the benchmark subcommand only.
const breakEnv = "AGENT_HARNESS_SELFTEST_BREAK"

// benchmarkReportPath is where the benchmark writes its JSON report by
// default, relative to the current directory (--report-file changes it).
var benchmarkReportPath = filepath.Join(".cuonztech", "benchmark-report.json")

// benchmarkUsage is the text of `agent-harness benchmark --help`.
func benchmarkUsage() string {
	return `Usage: agent-harness benchmark [flags]

Self-test of the harness: two built-in reference agents (CAREFUL and NAIVE)
talk MCP through the proxy's relay and pipeline to a simulated backend, once
per scenario and run. It does not measure your agent. Exit 0 when every run
got the verdict expected for its agent. Also writes the JSON report to
.cuonztech/benchmark-report.json in the current directory, or to --report-file.

Flags:
` + benchmarkFlagSet(&benchmarkFlags{}).usage()
}

// benchmarkFlags are the parsed and validated benchmark flags.
type benchmarkFlags struct {
	opts selftest.Options
	help bool
	// reportFile is the --report-file path; "" = the default path.
	reportFile string
}

// benchmarkFlagSet defines the benchmark's flags on f. A value's problem is
// a whole line of its own (invalid --runs "0": ...), the benchmark's
// wording.
func benchmarkFlagSet(f *benchmarkFlags) *flagSet {
	s := newFlagSet("benchmark")
	s.quoted = true
	s.value(funcValue(func(v string) error {
		// The proxy's checks: a regular file or nothing, in an existing
		// directory on a real file system — before anything runs.
		if err := reportfile.Check(v); err != nil {
			return usagef("flag --report-file: %s", err)
		}
		f.reportFile = v
		return nil
	}), "report-file", "FILE", ".cuonztech/benchmark-report.json", "write the JSON report to FILE (its directory must exist)")
	s.value(funcValue(func(v string) error {
		list, err := parseScenarioList(v)
		if err != nil {
			return usagef("invalid --scenarios %q: %s", v, err)
		}
		f.opts.Scenarios = list
		return nil
	}), "scenarios", "LIST", "all", "comma-separated subset of "+strings.Join(fault.Scenarios(), ","))
	s.value(funcValue(func(v string) error {
		n, err := parseBounded(v, 1, selftest.MaxRuns)
		if err != nil {
			return usagef("invalid --runs %q: %s", v, err)
		}
		f.opts.Runs = int(n)
		return nil
	}), "runs", "N", "1", fmt.Sprintf("runs per scenario and agent, 1–%d", selftest.MaxRuns))
	s.value(funcValue(func(v string) error {
		ms, err := parseBounded(v, 0, selftest.MaxJitter.Milliseconds())
		if err != nil {
			return usagef("invalid --jitter %q: %s", v, err)
		}
		f.opts.Jitter = time.Duration(ms) * time.Millisecond
		return nil
	}), "jitter", "MS", "0: none", fmt.Sprintf("random backend delay per call, 0–%d ms, on the simulated clock", selftest.MaxJitter.Milliseconds()))
	s.value(funcValue(func(v string) error {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return usagef("invalid --seed %q: must be an integer from 0 to %d", v, uint64(1<<64-1))
		}
		f.opts.Seed = n
		return nil
	}), "seed", "N", "random, printed", "seed of the jitter draws (only with --jitter)")
	s.helpAndVersion("show this help", "print the version and exit")
	return s
}

// parseBenchmarkFlags parses args; the error is the one line shown to the
// user.
func parseBenchmarkFlags(args []string) (benchmarkFlags, error) {
	f := benchmarkFlags{opts: selftest.Options{Scenarios: selftest.AllScenarios(), Runs: 1}}
	s := benchmarkFlagSet(&f)
	words, err := s.parse(args)
	switch {
	case errors.Is(err, errHelp):
		return benchmarkFlags{help: true}, nil
	case err != nil:
		return f, err
	case len(words) > 0:
		return f, usagef("unexpected argument %q", words[0])
	case s.given("seed") && f.opts.Jitter == 0:
		return f, usagef("--seed needs --jitter above 0 (without jitter nothing is drawn)")
	case !s.given("seed"):
		f.opts.Seed = randomSeed()
	}
	return f, nil
}

// parseScenarioList parses a comma list of distinct built-in scenario
// names, upper-cased.
func parseScenarioList(s string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		name := strings.ToUpper(strings.TrimSpace(part))
		switch {
		case name == "":
			return nil, errors.New("empty entry; use a comma list such as F1,F3")
		case !selftest.IsScenario(name):
			return nil, fmt.Errorf("unknown scenario %q; choose from %s", strings.TrimSpace(part), strings.Join(selftest.AllScenarios(), ","))
		case seen[name]:
			return nil, fmt.Errorf("scenario %s listed twice", name)
		}
		seen[name] = true
		out = append(out, name)
	}
	return out, nil
}

// parseBounded parses a decimal integer in [lo, hi].
func parseBounded(s string, lo, hi int64) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("must be an integer from %d to %d", lo, hi)
	}
	return n, nil
}

func randomSeed() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return uint64(time.Now().UnixNano())
	}
	return binary.LittleEndian.Uint64(b[:]) >> 1 // fits an int64 in JSON readers
}

// runBenchmark runs the self-test (behaviour §10). stdout gets the human result;
// the benchmark is not an MCP mode.
func runBenchmark(ctx context.Context, args []string, std stdio) error {
	stdout, stderr := std.out, std.err
	f, err := parseBenchmarkFlags(args)
	if f.help {
		err = errHelp
	}
	if err != nil {
		return withUsage(err, benchmarkUsage)
	}
	if v := os.Getenv(breakEnv); v != "" {
		if !selftest.IsBreak(v) {
			return usagef("invalid %s %q: the test hooks are %q and %q", breakEnv, v, selftest.BreakNoDuplicates, selftest.BreakLostGhosts)
		}
		f.opts.Break = v
		fmt.Fprintf(stderr, "[agent-harness] benchmark: TEST HOOK %s=%s: the judge is deliberately broken\n", breakEnv, v)
	}
	if f.opts.Jitter > 0 {
		fmt.Fprintf(stderr, "[agent-harness] benchmark: jitter up to %d ms per backend call, seed %d\n", f.opts.Jitter.Milliseconds(), f.opts.Seed)
	}
	res, err := selftest.Run(ctx, f.opts)
	if err != nil {
		return err
	}
	if err := writeBenchmarkReport(res, f.reportFile); err != nil {
		return err
	}
	if _, err := io.WriteString(stdout, res.Text()); err != nil {
		return exitCode(exitFailure) // stdout is gone: nothing to say it on
	}
	if !res.Passed() {
		return exitCode(exitFailure) // the result on stdout says why
	}
	return nil
}

// writeBenchmarkReport writes the JSON report to path, or, when path is
// "", to .cuonztech/benchmark-report.json, creating that folder. An older
// file is replaced atomically (the proxy's report-file writer: temporary
// file, then rename).
func writeBenchmarkReport(res *selftest.Result, path string) error {
	if path == "" {
		path = benchmarkReportPath
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	data, err := res.JSON()
	if err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	w, err := reportfile.New(path, reportfile.Options{})
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := w.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
