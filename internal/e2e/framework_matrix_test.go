package e2e

// The framework matrix of SPEC §20.3 (issue 21 items 7 and 8): the agent
// frameworks' own MCP clients, each driven by the framework's own scripted
// model (no LLM) — the Vercel AI SDK (MockLanguageModelV4 from ai/test),
// LangChain.js (@langchain/mcp-adapters under LangGraph's ReAct agent,
// fakeModel from @langchain/core/testing) and OpenAI Agents JS
// (ScriptedModel from @openai/agents-core/testing) — through the built
// proxy in front of `agent-harness sample-server`, × F1–F5 × stdio, HTTP
// (--listen) and --fault-layer http × the sessions each client can be made
// to negotiate. The model calls create_booking once, then stops. Each cell
// records what the framework handed the model as the tool's result (its
// text and error flag), asserts that the fault arrived as what it claims
// to be, and that the report's executions equal the upstream's ground
// truth: the sample server's --state-file lines, one file per upstream
// process (OpenAI Agents JS over stdio starts the proxy twice, a
// server/discover probe and the session). The observations render the
// table of docs/clients.md "What your framework shows the model", which
// the test checks line by line.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/fault"
)

// frameworkMatrixEnv=full runs every cell; by default a subset runs (the
// rows of fwDefaultRows), as the full matrix's wall time is too long for
// every `go test` (BENCHMARKS.md).
const frameworkMatrixEnv = "AGENT_HARNESS_FRAMEWORK_MATRIX"

// fwFramework is one framework's agent script and the sessions its client
// can be made to negotiate.
type fwFramework struct {
	name   string // as the table names it
	script string // under testdata/npm
	pkg    string // a package.json under node_modules that it needs
	// sessions are the protocol eras the client can be made to speak.
	sessions []fwSession
}

// fwSession is one protocol era a client negotiates.
type fwSession struct {
	name string // "2025" or "2026"
	// discover is the AI SDK's protocolVersionDiscovery (nil: not
	// configurable).
	discover *bool
	// version is the revision the client must report as negotiated; ""
	// when the client does not expose it.
	version string
}

var (
	fwDiscoverOn  = true
	fwDiscoverOff = false
)

var fwFrameworks = []fwFramework{
	{name: "AI SDK", script: "aisdk-agent.mjs", pkg: "@ai-sdk/mcp", sessions: []fwSession{
		{name: "2025", discover: &fwDiscoverOff, version: "2025-11-25"},
		{name: "2026", discover: &fwDiscoverOn, version: "2026-07-28"},
	}},
	// MultiServerMCPClient runs the MCP SDK v1 client: initialize with
	// 2025-11-25 at most, no server/discover.
	{name: "LangChain.js", script: "langchain-agent.mjs", pkg: "@langchain/mcp-adapters", sessions: []fwSession{{name: "2025"}}},
	// MCPServerStdio and MCPServerStreamableHttp run the MCP SDK v2 client
	// with versionNegotiation "auto", which nothing in the framework's
	// options turns off: against a server offering 2026-07-28 the session
	// is always 2026.
	{name: "OpenAI Agents JS", script: "openai-agents-agent.mjs", pkg: "@openai/agents-core", sessions: []fwSession{{name: "2026", version: "2026-07-28"}}},
}

// fwSides are the agent sides and fault layers of the matrix.
var fwSides = []struct {
	name  string // as the table names it
	http  bool
	layer string // --fault-layer
}{
	{"stdio", false, "tool"},
	{"HTTP", true, "tool"},
	{"HTTP, `--fault-layer http`", true, "http"},
}

var fwScenarios = []string{"F1", "F2", "F3", "F4", "F5"}

// fwDefaultRows are the rows (framework/session/side) run without
// AGENT_HARNESS_FRAMEWORK_MATRIX=full (.ci/run sets it): every framework
// once, stdio, HTTP and the HTTP layer once each.
var fwDefaultRows = []string{
	"AI SDK/2026/stdio",
	"LangChain.js/2025/HTTP",
	"OpenAI Agents JS/2026/HTTP, `--fault-layer http`",
}

// fwSaw is what a framework handed its model as the call's result.
type fwSaw struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	IsError bool   `json:"isError"`
}

// fwObservations are the cells' summaries by row, then scenario.
var fwObservations = struct {
	sync.Mutex
	rows map[string]map[string]string
}{rows: map[string]map[string]string{}}

func TestFrameworkMatrix(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs node agents through the proxy")
	}
	if _, err := exec.LookPath("node"); err != nil {
		skipInterop(t, missingNode)
	}
	for _, fw := range fwFrameworks {
		if npmFile(t, fw.script) == "" || npmFile(t, "node_modules", fw.pkg, "package.json") == "" {
			skipInterop(t, missingNPM)
		}
	}
	full := os.Getenv(frameworkMatrixEnv) == "full"
	start := time.Now()
	var rows []string
	t.Run("cells", func(t *testing.T) {
		for _, fw := range fwFrameworks {
			for _, se := range fw.sessions {
				for _, side := range fwSides {
					row := fw.name + "/" + se.name + "/" + side.name
					if !full && !slices.Contains(fwDefaultRows, row) {
						continue
					}
					rows = append(rows, row)
					for _, sc := range fwScenarios {
						t.Run(row+"/"+sc, func(t *testing.T) {
							t.Parallel()
							summary := runFrameworkCell(t, fw, se, side.http, side.layer, sc)
							fwObservations.Lock()
							if fwObservations.rows[row] == nil {
								fwObservations.rows[row] = map[string]string{}
							}
							fwObservations.rows[row][sc] = summary
							fwObservations.Unlock()
						})
					}
				}
			}
		}
	})
	t.Logf("framework matrix: %d rows × %d scenarios in %s (full: %v)", len(rows), len(fwScenarios), time.Since(start).Round(time.Second), full)
	if !full {
		total := 0
		for _, fw := range fwFrameworks {
			total += len(fw.sessions) * len(fwSides)
		}
		noteSubset(fmt.Sprintf("TestFrameworkMatrix ran %d of its %d rows (%s=full runs all)", len(rows), total, frameworkMatrixEnv))
	}
	var observed []string
	for _, row := range rows {
		observed = append(observed, fwTableRow(row, fwObservations.rows[row]))
	}
	t.Logf("the observed rows:\n%s", strings.Join(observed, "\n"))
	if t.Failed() {
		return
	}
	// The table of docs/clients.md holds every observed row as it was
	// observed, and (full matrix) no other.
	section := docSection(t, "docs/clients.md", "## What your framework shows the model")
	var docRows []string
	for line := range strings.SplitSeq(section, "\n") {
		if strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| framework ") && !strings.HasPrefix(line, "|---") {
			docRows = append(docRows, line)
		}
	}
	for _, line := range observed {
		if !slices.Contains(docRows, line) {
			t.Errorf("docs/clients.md's table lacks the observed row (or says something else for it):\n%s", line)
		}
	}
	if full && len(docRows) != len(rows) {
		t.Errorf("docs/clients.md's table has %d rows, the matrix observed %d", len(docRows), len(rows))
	}
}

// fwTableRow is one row of the table: framework, session, agent side, then
// what the model saw under F1–F5.
func fwTableRow(row string, cells map[string]string) string {
	parts := strings.SplitN(row, "/", 3)
	line := "| " + strings.Join(parts, " | ")
	for _, sc := range fwScenarios {
		line += " | " + cells[sc]
	}
	return line + " |"
}

// fwSummary is a cell of the table: what the model read, then whether it
// was told it was an error ("no error flag": the framework handed it over
// as a successful result; OpenAI Agents JS's function_call_result item has
// no error flag at all).
func fwSummary(s fwSaw) string {
	const fixMistakes = "Please fix your mistakes."
	t := s.Text
	var what string
	switch core := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t), fixMistakes)); {
	case strings.Contains(t, fault.TimeoutText):
		what = "the timeout text"
	case strings.Contains(t, "HTTP 429 Too Many Requests: rate limit exceeded. Retry after 60 seconds."):
		what = "the 429 text, retry after 60 s"
	case strings.Contains(t, fault.ServerErrorText):
		what = "the 500 text"
	case strings.Contains(t, `"booking_id":"B-0001"`):
		what = "the booking"
	case core == fault.TruncatedText || strings.HasSuffix(core, ": "+fault.TruncatedText):
		what = "`{\"`"
	default:
		what = "“" + strings.Join(strings.Fields(t), " ") + "”"
	}
	what = strings.ReplaceAll(what, "|", `\|`)
	if strings.Contains(t, fixMistakes) && !strings.Contains(what, fixMistakes) {
		what += " + “" + fixMistakes + "”"
	}
	if s.IsError {
		return what + " (error)"
	}
	return what + " (no error flag)"
}

// runFrameworkCell runs one framework agent through one proxy and returns
// the cell's summary.
func runFrameworkCell(t *testing.T, fw fwFramework, se fwSession, http bool, layer, sc string) string {
	script := npmFile(t, fw.script)
	dir := t.TempDir()
	bin := built(t, "agent-harness")
	// One ground-truth file per upstream process: the shell's pid names
	// it, and exec keeps that pid for the sample server.
	upstream := []string{"sh", "-c", `exec "$0" sample-server --state-file "$1/state.$$.jsonl"`, bin, dir}
	flags := []string{"--scenario", sc, "--audit-tools", "off"}
	cfg := map[string]any{}
	if se.discover != nil {
		cfg["discover"] = *se.discover
	}
	var report string
	var hp *httpProxy
	if http {
		hp = startHTTPProxy(t, append(append(flags, "--fault-layer", layer, "--"), upstream...)...)
		report = hp.report
		cfg["transport"], cfg["url"] = "http", hp.url
	} else {
		report = filepath.Join(dir, "report.json")
		cfg["transport"], cfg["command"] = "stdio", bin
		cfg["args"] = append(append([]string{"proxy"}, append(flags, "--report-file", report, "--")...), upstream...)
	}
	b, _ := json.Marshal(cfg)
	out, stderr, code := runNode(t, filepath.Dir(script), nil, script, string(b))
	if code != 0 {
		t.Fatalf("%s exit %d; stderr:\n%s", fw.script, code, stderr)
	}
	var got struct {
		Version    string `json:"version"`
		ModelSaw   *fwSaw `json:"modelSaw"`
		ModelCalls int    `json:"modelCalls"`
		Error      string `json:"error"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%s printed %q: %v; stderr:\n%s", fw.script, out, err, stderr)
	}
	if hp != nil {
		// SIGTERM ends a --listen proxy with 128+15 (behaviour §8.1).
		if code := hp.stop(syscall.SIGTERM); code != 128+int(syscall.SIGTERM) {
			t.Errorf("proxy exit %d; stderr:\n%s", code, hp.stderr.String())
		}
	}
	if got.Error != "" || got.ModelSaw == nil {
		t.Fatalf("the agent run threw instead of handing the model a result: %q (model calls %d); stderr:\n%s", got.Error, got.ModelCalls, stderr)
	}
	if got.ModelCalls != 2 {
		t.Errorf("the scripted model was called %d times, want 2 (the call, then the answer)", got.ModelCalls)
	}
	if se.version != "" && got.Version != se.version {
		t.Errorf("negotiated %q, want %q", got.Version, se.version)
	}
	saw := *got.ModelSaw
	checkFrameworkSaw(t, saw, layer, sc)

	// The report against the upstream's ground truth.
	rb, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("report file: %v; stderr:\n%s", err, stderr)
	}
	var r fileReport
	if err := json.Unmarshal(rb, &r); err != nil {
		t.Fatalf("report file: %v\n%s", err, rb)
	}
	truth := fwGroundTruth(t, dir)
	if r.Status != "finished" || r.executions()["create_booking"] != truth {
		t.Errorf("report: status %s, %d execution(s) of create_booking; the upstream's state files hold %d\n%s",
			r.Status, r.executions()["create_booking"], truth, rb)
	}
	// One model call, one request: the verdict is PASS (a client library
	// that re-sent would make it FAIL, and the cell would say so).
	if r.Report.Verdict != "PASS" {
		t.Errorf("verdict %s, want PASS: %s", r.Report.Verdict, r.Report.VerdictReason)
	}
	return fwSummary(saw)
}

// checkFrameworkSaw asserts that the fault reached the model as what it
// claims to be.
func checkFrameworkSaw(t *testing.T, saw fwSaw, layer, sc string) {
	t.Helper()
	booked := strings.Contains(saw.Text, `"booking_id":"B-0001"`)
	has := func(subs ...string) bool {
		for _, sub := range subs {
			if strings.Contains(saw.Text, sub) {
				return true
			}
		}
		return false
	}
	// OpenAI Agents JS hands its model one fixed text for every error its
	// MCP client throws, which is what an HTTP-layer fault becomes.
	const tryAgain = "An error occurred while running the tool. Please try again."
	var ok bool
	if layer == "tool" {
		switch sc {
		case "F1":
			ok = has(fault.TimeoutText)
		case "F2":
			ok = has("HTTP 429 Too Many Requests: rate limit exceeded. Retry after 60 seconds.")
		case "F3":
			// `{"` alone: any JSON object contains it.
			ok = strings.HasPrefix(fwSummary(saw), "`{\"`")
		case "F4":
			ok = booked && !saw.IsError
		case "F5":
			ok = has(fault.ServerErrorText)
		}
	} else {
		// At the HTTP layer the fault is HTTP: the model sees whatever
		// the framework makes of the client library's exception — never
		// a booking, and the status where the framework passes it on.
		switch sc {
		case "F1", "F3":
			ok = !booked
		case "F2":
			ok = !booked && has("429", "Too Many Requests", tryAgain)
			// No framework hands the model the Retry-After header: the
			// docs say so, and this fails the day one does.
			if has("60") {
				t.Errorf("F2 at the HTTP layer: the model saw a retry delay, which docs/clients.md says no framework passes on: %+v", saw)
			}
		case "F4":
			ok = booked && !saw.IsError
		case "F5":
			ok = !booked && has("500", "Internal Server Error", tryAgain)
		}
	}
	if !ok {
		t.Errorf("%s at the %s layer: the model saw %+v", sc, layer, saw)
	}
}

// fwGroundTruth counts the create_booking executions in every state file
// under dir (one per upstream process).
func fwGroundTruth(t *testing.T, dir string) int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "state.*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
			if line == "" {
				continue
			}
			var e struct{ Tool string }
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatalf("%s: %q: %v", f, line, err)
			}
			if e.Tool == "create_booking" {
				n++
			}
		}
	}
	// The sample server creates its state file when it starts: none
	// means no upstream ran, which must not pass for 0 executions.
	if len(files) == 0 {
		t.Fatalf("no state file under %s: no upstream process started", dir)
	}
	return n
}
