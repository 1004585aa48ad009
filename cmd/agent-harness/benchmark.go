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

	"github.com/spf13/pflag"

	"github.com/cuonztech/agent-harness/host/reportfile"
	"github.com/cuonztech/agent-harness/host/selftest"
)

// breakEnv names the benchmark's test hook: when set, the self-test runs
// with a deliberately broken judge so tests can prove that the self-test
// can fail. It is read by the benchmark subcommand only.
const breakEnv = "AGENT_HARNESS_SELFTEST_BREAK"

// benchmarkReportPath is where the benchmark writes its JSON report by
// default, relative to the current directory (--report-file changes it).
var benchmarkReportPath = filepath.Join(".cuonztech", "benchmark-report.json")

const benchmarkUsage = `Usage: agent-harness benchmark [flags]

Self-test of the harness: two built-in reference agents (CAREFUL and NAIVE)
talk MCP through the proxy's relay and pipeline to a simulated backend, once
per scenario and run. It does not measure your agent. Exit 0 when every run
got the verdict expected for its agent. Also writes the JSON report to
.cuonztech/benchmark-report.json in the current directory, or to --report-file.

Flags:
  --report-file FILE write the JSON report to FILE (its directory must exist;
                     default .cuonztech/benchmark-report.json, folder created)
  --scenarios LIST   comma-separated subset of F1,F2,F3,F4,F5 (default all)
  --runs N           runs per scenario and agent, 1–1000 (default 1)
  --jitter MS        random backend delay per call, 0–60000 ms, on the
                     simulated clock (default 0: none)
  --seed N           seed of the jitter draws (default random, printed;
                     only with --jitter)
  --help             show this help
`

// benchmarkFlags are the parsed and validated benchmark flags.
type benchmarkFlags struct {
	opts selftest.Options
	help bool
	// reportFile is the --report-file path; "" = the default path.
	reportFile string
}

// newFlagSet returns a flag set that reports errors to its caller only:
// every subcommand prints its own one-line message and usage.
func newFlagSet(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseBenchmarkFlags parses args; the error is the one line shown to the
// user.
func parseBenchmarkFlags(args []string) (benchmarkFlags, error) {
	var f benchmarkFlags
	fs := newFlagSet("benchmark")
	scenarios := fs.String("scenarios", "", "")
	runs := fs.String("runs", "", "")
	jitter := fs.String("jitter", "", "")
	seed := fs.String("seed", "", "")
	reportFile := fs.String("report-file", "", "")
	fs.BoolVar(&f.help, "help", false, "")
	if help, err := parseFlagSet(fs, args); help || err != nil {
		f.help = help
		return f, err
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	f.opts = selftest.Options{Scenarios: selftest.AllScenarios(), Runs: 1}
	if fs.Changed("report-file") {
		// The proxy's checks: a regular file or nothing, in an existing
		// directory on a real file system — before anything runs.
		if err := reportfile.Check(*reportFile); err != nil {
			return f, fmt.Errorf("flag --report-file: %s", oneLine(err.Error()))
		}
		f.reportFile = *reportFile
	}
	if fs.Changed("scenarios") {
		list, err := parseScenarioList(*scenarios)
		if err != nil {
			return f, fmt.Errorf("invalid --scenarios %q: %w", *scenarios, err)
		}
		f.opts.Scenarios = list
	}
	if fs.Changed("runs") {
		n, err := parseBounded(*runs, 1, selftest.MaxRuns)
		if err != nil {
			return f, fmt.Errorf("invalid --runs %q: %w", *runs, err)
		}
		f.opts.Runs = int(n)
	}
	if fs.Changed("jitter") {
		ms, err := parseBounded(*jitter, 0, selftest.MaxJitter.Milliseconds())
		if err != nil {
			return f, fmt.Errorf("invalid --jitter %q: %w", *jitter, err)
		}
		f.opts.Jitter = time.Duration(ms) * time.Millisecond
	}
	if fs.Changed("seed") {
		if f.opts.Jitter == 0 {
			return f, errors.New("--seed needs --jitter above 0 (without jitter nothing is drawn)")
		}
		s, err := strconv.ParseUint(*seed, 10, 64)
		if err != nil {
			return f, fmt.Errorf("invalid --seed %q: must be an integer from 0 to %d", *seed, uint64(1<<64-1))
		}
		f.opts.Seed = s
	} else {
		f.opts.Seed = randomSeed()
	}
	return f, nil
}

// checkFlagValues rejects what pflag would accept silently: a value flag
// given without "=" whose next argument starts with "--" (never taken as a
// value; write --flag=--value), and empty values.
// parseFlagSet checks values (see checkFlagValues), then parses args into
// fs; help is true when the set's --help flag was given or pflag saw -h.
func parseFlagSet(fs *pflag.FlagSet, args []string) (help bool, err error) {
	if err := checkFlagValues(fs, args); err != nil {
		return false, err
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return true, nil
		}
		return false, err
	}
	if h := fs.Lookup("help"); h != nil && h.Value.String() == "true" {
		return true, nil
	}
	return false, nil
}

func checkFlagValues(fs *pflag.FlagSet, args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return nil
		}
		if !strings.HasPrefix(a, "--") {
			continue
		}
		name, value, hasValue := strings.Cut(a[2:], "=")
		fl := fs.Lookup(name)
		if fl == nil {
			var known []string
			fs.VisitAll(func(f *pflag.Flag) { known = append(known, f.Name) })
			return fmt.Errorf("unknown flag %s%s", strconv.Quote("--"+name), didYouMean(name, known))
		}
		if fl.Value.Type() == "bool" {
			continue
		}
		if !hasValue {
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "--") {
				return fmt.Errorf("flag --%s needs a value", name)
			}
			i++
			value = args[i]
		}
		if strings.TrimSpace(value) == "" {
			return fmt.Errorf("flag --%s has an empty value", name)
		}
	}
	return nil
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

// runBenchmark runs the self-test (SPEC §7). stdout gets the human result;
// the benchmark is not an MCP mode.
func runBenchmark(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	f, err := parseBenchmarkFlags(args)
	if err != nil {
		// One line, whatever the user typed.
		msg := strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(err.Error())
		fmt.Fprintf(stderr, "[agent-harness] benchmark: %s\n", msg)
		return exitUsage
	}
	if f.help {
		fmt.Fprint(stdout, benchmarkUsage)
		return exitOK
	}
	if v := os.Getenv(breakEnv); v != "" {
		if !selftest.IsBreak(v) {
			fmt.Fprintf(stderr, "[agent-harness] benchmark: invalid %s %q: the only test hook is %q\n", breakEnv, v, selftest.BreakNoDuplicates)
			return exitUsage
		}
		f.opts.Break = v
		fmt.Fprintf(stderr, "[agent-harness] benchmark: TEST HOOK %s=%s: the judge is deliberately broken\n", breakEnv, v)
	}
	if f.opts.Jitter > 0 {
		fmt.Fprintf(stderr, "[agent-harness] benchmark: jitter up to %d ms per backend call, seed %d\n", f.opts.Jitter.Milliseconds(), f.opts.Seed)
	}
	res, err := selftest.Run(ctx, f.opts)
	if err != nil {
		fmt.Fprintf(stderr, "[agent-harness] benchmark: %v\n", err)
		return exitFailure
	}
	if err := writeBenchmarkReport(res, f.reportFile); err != nil {
		fmt.Fprintf(stderr, "[agent-harness] benchmark: %v\n", err)
		return exitFailure
	}
	if _, err := io.WriteString(stdout, res.Text()); err != nil {
		return exitFailure
	}
	if !res.Passed() {
		return exitFailure
	}
	return exitOK
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
