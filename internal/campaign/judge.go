package campaign

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cuonztech/agent-harness/internal/escape"
)

// reportFile is the part of the proxy's report file a campaign reads.
type reportFile struct {
	Status       string `json:"status"`
	Verdict      string `json:"verdict"`
	StartupError string `json:"startupError"`
	Report       *struct {
		VerdictReason string `json:"verdictReason"`
		Violations    []struct {
			Type string `json:"type"`
		} `json:"violations"`
		Observations []struct {
			Type string `json:"type"`
		} `json:"observations"`
		Operations []struct {
			Attempts  int    `json:"attempts"`
			Outcome   string `json:"outcome"`
			DecidedBy string `json:"decidedBy"`
		} `json:"operations"`
		Coverage struct {
			Calls struct {
				Total int `json:"total"`
				Write int `json:"write"`
			} `json:"calls"`
		} `json:"coverage"`
	} `json:"report"`
	Score *struct {
		Total *int `json:"total"`
	} `json:"score"`
	Patches []Patch `json:"patches"`
	State   *struct {
		Tools []RunEffect `json:"tools"`
	} `json:"state"`
}

// backendOf fills the record's effects and wire-vs-backend entries from
// the run's report (behaviour §16).
func backendOf(rec *Record, r *reportFile) {
	if r.State != nil {
		rec.Effects = append(rec.Effects, r.State.Tools...)
	}
	deduplicated := 0
	for _, o := range r.Report.Observations {
		switch o.Type {
		case BackendDeduplicated:
			deduplicated++
			rec.Backend = append(rec.Backend, BackendDeduplicated)
		case BackendDisagrees:
			rec.Backend = append(rec.Backend, BackendDisagrees)
		}
	}
	for _, op := range r.Report.Operations {
		switch {
		case op.DecidedBy != "backend":
		case op.Outcome == "DUPLICATE_EXECUTION":
			rec.Backend = append(rec.Backend, BackendDuplicate)
		case deduplicated > 0:
			deduplicated-- // counted as DEDUPLICATED_BY_BACKEND
		default:
			rec.Backend = append(rec.Backend, BackendResolved)
		}
	}
}

func readReport(path string) (*reportFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r reportFile
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("the report file is not valid JSON: %w", err)
	}
	return &r, nil
}

// reportStatus is the status of the report at path, "" when unreadable.
func reportStatus(path string) string {
	r, err := readReport(path)
	if err != nil {
		return ""
	}
	return r.Status
}

// judgeRun sets the record's verdict from the run's final reports in dir
// and how the agent ended (behaviour §9: the run's result is its final
// report's verdict, a report not finished is NOT_TESTED; an agent that
// never connected or exited before a write is NOT_TESTED with that
// reason). Anything the campaign cannot read is NOT_TESTED, never PASS.
// A run whose agent started more than one proxy has one report per proxy
// process (--no-replace): FAIL when one of them is FAIL, else NOT_TESTED
// "several proxies" — writes across proxy processes are not judged
// together, so no PASS can come from them. Proxies whose final report
// counts no tool call are left out: with one proxy left the run is judged
// as a run with one proxy.
func judgeRun(rec *Record, dir string, ex agentExit, timeout time.Duration) {
	reports := reportFiles(dir)
	active := withCalls(reports)
	switch {
	case len(reports) <= 1:
		judgeReport(rec, filepath.Join(dir, ReportFile), ex, timeout)
	case len(active) <= 1:
		// Only one proxy saw a tool call (a client that starts its server
		// once to list the tools, then again for the session): every call
		// of the run is in that report, judged together as in a run with
		// one proxy.
		one := reports[0]
		if len(active) == 1 {
			one = active[0]
		}
		judgeReport(rec, one, ex, timeout)
		rec.Reason += fmt.Sprintf(" (%d proxy processes ran; only %s had tool calls, the others finished without any.)",
			len(reports), filepath.Base(one))
	default:
		judgeSeveral(rec, active, len(reports), ex, timeout)
	}
	if rec.Verdict != NotTested {
		rec.NotTestedKind = ""
	} else if rec.NotTestedKind == "" {
		rec.NotTestedKind = KindOther
	}
	joinRun(rec, dir)
}

// reportFiles lists the report files of the run in dir in the order their
// proxies claimed them: report.json, then report.2.json, report.3.json …
// (behaviour §9.1). report.json is listed even when it does not exist.
func reportFiles(dir string) []string {
	type numbered struct {
		n    int
		path string
	}
	var more []numbered
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		mid, ok := strings.CutPrefix(e.Name(), "report.")
		if !ok {
			continue
		}
		mid, ok = strings.CutSuffix(mid, ".json")
		n, err := strconv.Atoi(mid)
		if !ok || err != nil || n < 2 || strconv.Itoa(n) != mid {
			continue
		}
		more = append(more, numbered{n, filepath.Join(dir, e.Name())})
	}
	sort.Slice(more, func(i, j int) bool { return more[i].n < more[j].n })
	out := []string{filepath.Join(dir, ReportFile)}
	for _, m := range more {
		out = append(out, m.path)
	}
	return out
}

// proxyNumber is the number a proxy claimed with its report file name:
// report.json 1, report.N.json N.
func proxyNumber(name string) int {
	mid := strings.TrimSuffix(strings.TrimPrefix(name, "report."), ".json")
	if n, err := strconv.Atoi(mid); err == nil {
		return n
	}
	return 1
}

// reportsFinished reports whether every report file of the run in dir
// says finished (and there is one).
func reportsFinished(dir string) bool {
	for _, p := range reportFiles(dir) {
		if reportStatus(p) != "finished" {
			return false
		}
	}
	return true
}

// withCalls are the reports that may hold a tool call: all but the final
// ones (status finished) that counted none.
func withCalls(reports []string) []string {
	var out []string
	for _, p := range reports {
		r, err := readReport(p)
		if err == nil && r.Status == "finished" && r.Report != nil && r.Report.Coverage.Calls.Total == 0 {
			continue
		}
		out = append(out, p)
	}
	return out
}

// judgeSeveral judges a run with one report per proxy process (reports:
// those with tool calls, of total): each report as judgeReport judges a
// single one, then FAIL when one is FAIL (its reason, naming the proxy),
// else NOT_TESTED of kind "several proxies". Violations, observations and
// patches of every report are kept.
func judgeSeveral(rec *Record, reports []string, total int, ex agentExit, timeout time.Duration) {
	base := *rec
	var verdicts []string
	var failed *Record
	status := "finished"
	for _, p := range reports {
		sub := base
		sub.Violations, sub.Observations, sub.Patches = []string{}, []string{}, []Patch{}
		judgeReport(&sub, p, ex, timeout)
		name := filepath.Base(p)
		verdicts = append(verdicts, name+" "+sub.Verdict)
		if sub.ReportStatus != "finished" && status == "finished" {
			status = sub.ReportStatus
		}
		rec.Violations = append(rec.Violations, sub.Violations...)
		rec.Observations = append(rec.Observations, sub.Observations...)
		rec.Patches = append(rec.Patches, sub.Patches...)
		rec.Effects, rec.Backend = append(rec.Effects, sub.Effects...), append(rec.Backend, sub.Backend...)
		if sub.Verdict == Fail && failed == nil {
			sub.Reason = fmt.Sprintf("Proxy %d of %d (%s): %s", proxyNumber(name), total, name, sub.Reason)
			failed = &sub
		}
		rec.AgentExitCode, rec.AgentSignal, rec.TimedOut = sub.AgentExitCode, sub.AgentSignal, sub.TimedOut
	}
	if failed != nil {
		rec.Verdict, rec.Reason, rec.Score, rec.ReportStatus = Fail, failed.Reason, failed.Score, failed.ReportStatus
		return
	}
	rec.Verdict, rec.Score, rec.ReportStatus, rec.NotTestedKind = NotTested, nil, status, KindSeveralProxies
	rec.Reason = fmt.Sprintf("%d proxy processes ran in this run (the agent started its MCP server %d times), %d with tool calls: "+
		"writes across proxy processes are not judged together; their verdicts: %s.", total, total, len(reports), strings.Join(verdicts, ", "))
}

func judgeReport(rec *Record, reportPath string, ex agentExit, timeout time.Duration) {
	rec.AgentExitCode, rec.AgentSignal, rec.TimedOut = ex.code, ex.signal, ex.timedOut
	rec.Verdict = NotTested
	how := agentEnd(ex, timeout)
	if ex.proxyErr != nil {
		rec.Reason = fmt.Sprintf("The proxy did not start listening: %s.", strings.TrimSuffix(escape.LineBreaks(ex.proxyErr.Error()), "."))
		return
	}
	if ex.startErr != nil {
		rec.Reason = fmt.Sprintf("The agent did not start: %s.", escape.LineBreaks(ex.startErr.Error()))
		return
	}
	r, err := readReport(reportPath)
	switch {
	case errors.Is(err, os.ErrNotExist):
		rec.Reason = fmt.Sprintf("The agent never started the proxy (no report file); it %s.", how)
		rec.NotTestedKind = beforeWriteKind(ex, KindNeverConnected)
		return
	case err != nil:
		rec.Reason = fmt.Sprintf("%s; the agent %s.", strings.TrimSuffix(escape.LineBreaks(err.Error()), "."), how)
		return
	}
	rec.ReportStatus = r.Status
	switch {
	case r.Status == "failed":
		rec.Reason = fmt.Sprintf("The proxy did not start: %s.", strings.TrimSuffix(escape.LineBreaks(r.StartupError), "."))
		return
	case r.Status == "starting" || r.Report == nil:
		rec.Reason = fmt.Sprintf("The agent never connected to the proxy; it %s.", how)
		rec.NotTestedKind = beforeWriteKind(ex, KindNeverConnected)
		return
	case r.Status != "finished":
		// behaviour §9.1: a report still running may lack a write in
		// flight; only the final one is judged.
		rec.Reason = fmt.Sprintf("The proxy did not finish its report (status %q, last verdict %s); the agent %s.", r.Status, r.Verdict, how)
		rec.NotTestedKind = KindOther
		return
	}
	for _, v := range r.Report.Violations {
		rec.Violations = append(rec.Violations, v.Type)
	}
	for _, o := range r.Report.Observations {
		rec.Observations = append(rec.Observations, o.Type)
	}
	backendOf(rec, r)
	if r.Patches != nil {
		rec.Patches = r.Patches
	}
	if r.Score != nil {
		rec.Score = r.Score.Total
	}
	switch r.Verdict {
	case Pass, Fail, NotTested:
		rec.Verdict = r.Verdict
	default:
		rec.Reason = fmt.Sprintf("The report's verdict %q is not PASS, FAIL or NOT_TESTED.", r.Verdict)
		rec.Score = nil
		return
	}
	rec.Reason = r.Report.VerdictReason
	switch {
	case rec.Verdict == NotTested && r.Report.Coverage.Calls.Total == 0:
		rec.Reason = fmt.Sprintf("The agent called no tool; it %s.", how)
		rec.NotTestedKind = beforeWriteKind(ex, KindNoWrite)
	case rec.Verdict == NotTested && r.Report.Coverage.Calls.Write == 0:
		rec.Reason = fmt.Sprintf("The agent %s before a write: %s", how, rec.Reason)
		rec.NotTestedKind = beforeWriteKind(ex, KindNoWrite)
	case ex.timedOut:
		rec.Reason += fmt.Sprintf(" (The agent %s.)", agentEnd(ex, timeout))
	}
	if rec.Verdict == NotTested && rec.NotTestedKind == "" {
		rec.NotTestedKind = writtenKind(r, ex)
	}
	if rec.Verdict == NotTested {
		rec.Score = nil // a NOT_TESTED run has no score
	}
}

// writtenKind is the kind of a NOT_TESTED run with writes, in the order of
// the judge's verdict rules (behaviour §5): a retried write of unknown
// outcome, then a possible duplicate with other arguments.
func writtenKind(r *reportFile, ex agentExit) string {
	for _, op := range r.Report.Operations {
		if op.Outcome == "EXECUTION_UNKNOWN" && op.Attempts > 1 {
			return KindUnknownRetried
		}
	}
	for _, o := range r.Report.Observations {
		if o.Type == "POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS" {
			return KindPossibleDup
		}
	}
	if ex.timedOut {
		return KindAgentTimedOut
	}
	return KindOther
}

// agentEnd says how the agent ended, for a reason sentence.
func agentEnd(ex agentExit, timeout time.Duration) string {
	switch {
	case ex.timedOut && timeout == 0: // re-judged from a record (LoadRecord)
		return "was stopped after --agent-timeout"
	case ex.timedOut:
		return fmt.Sprintf("was stopped after --agent-timeout %s", timeout)
	case ex.signal != "":
		return "was killed by " + ex.signal
	case ex.code != nil:
		return fmt.Sprintf("exited with code %d", *ex.code)
	}
	return "ended"
}
