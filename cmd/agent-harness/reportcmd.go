package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cuonztech/agent-harness/internal/campaign"
	"github.com/cuonztech/agent-harness/internal/escape"
	"github.com/cuonztech/agent-harness/internal/honesty"
	"github.com/cuonztech/agent-harness/internal/llmagent"
	"github.com/cuonztech/agent-harness/internal/render"
	"github.com/cuonztech/agent-harness/internal/report"
)

const reportUsageHead = `Usage: agent-harness report FILE [--format markdown|junit|json] [--claim CLAIM] [--transcript TRANSCRIPT]

Renders a report file (written by agent-harness proxy --report-file or
agent-harness judge --report-file) or a campaign's campaign.json after
checking it against its schema: markdown for people and PR comments, junit
for CI (a testsuite per run, a testcase for the verdict and one per
operation; for a campaign, its junit.xml), json for the file itself.
With --claim (a claim file {"claim": "SUCCEEDED"|"FAILED"|"UNKNOWN", ...} or
the built-in agent's transcript) the run's honesty — the agent's claim
against the judge's truth — is joined: a Honesty section in markdown, the
object at report.honesty in json; the verdict, score and exit code do not
change. With --transcript (the built-in agent's transcript.json) the
markdown ends with the conversation, the injected faults marked where the
model received them; its claim is joined as --claim's when --claim is not
given.

`

const reportUsageTail = `
Exit codes: 0 PASS, 1 FAIL, 3 NOT_TESTED (0 with --not-tested-ok) or a run
whose status is not finished (never 0), 2 usage error or a file that is
neither a valid run report nor a campaign file. For
a campaign the code is its gate's, whatever --not-tested-ok says: 0
passed, 1 a scenario below the minimum PASS rate, 3 a scenario with too many
NOT_TESTED runs or none judged, or runs missing (incomplete).
`

// runReport is `agent-harness report FILE`.
func runReport(_ context.Context, args []string, std stdio) error {
	stdout, stderr := std.out, std.err
	format, notTestedOK, claimPath, transcriptPath := "markdown", false, "", ""
	s := newFlagSet("report")
	s.value(choiceValue(&format, "a format (markdown, junit or json)", "markdown", "junit", "json"), "format", "FORMAT", "", "markdown (default), junit or json (any case)")
	s.text(&claimPath, "claim", "FILE", "", "join the agent's claim (a claim file or a transcript) with the judge's truth: honesty (behaviour §15)")
	s.text(&transcriptPath, "transcript", "FILE", "", "render the built-in agent's transcript after the report, the injected faults marked (docs/report.md); its claim is joined when --claim is not given")
	s.toggle(&notTestedOK, "not-tested-ok", "exit 0 instead of 3 for a run's NOT_TESTED verdict (not for a run that did not finish, nor for a campaign's gate)")
	s.helpAndVersion("print this help and exit", "print the version and exit")
	words, err := s.parse(args)
	if err == nil {
		err = oneWord(words, "no report file: agent-harness report FILE [--format markdown|junit|json]", "report file")
	}
	if err != nil {
		return withUsage(err, func() string { return reportUsageHead + s.usage() + reportUsageTail })
	}
	path := words[0]
	// A file that cannot be read or rendered is exit 2, like a bad flag.
	fail := func(format string, a ...any) error {
		return usagef("%s: %s", quoteArg(path), fmt.Sprintf(format, a...))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fail("cannot read: %v", err)
	}
	var r rendered
	switch {
	case report.Detect(data) == report.KindRun:
		// A file this command wrote with --claim carries the joined honesty
		// at report.honesty: rendered again as it is, or joined anew.
		plain, joined, err := honesty.Split(data)
		if err != nil {
			return fail("not a valid report file: %v", err)
		}
		f, err := report.ParseRun(plain)
		if err != nil {
			return fail("%v", err)
		}
		r = rendered{junit: render.JUnit(f), markdown: report.WithStatus(report.Markdown(f.Report, f.Score, f.Patches, f.State), f.Status), code: runExitCode(f.Verdict, f.Status, notTestedOK)}
		if claimPath == "" {
			claimPath = transcriptPath
		}
		if claimPath != "" {
			h := honesty.Join(honesty.TruthOf(plain), honesty.ReadClaim(claimPath))
			joined = &h
			// A report without a judged session (a proxy that did not
			// start) has no report.honesty to carry the object: its JSON
			// stays as it is, its Markdown says NOT_MEASURED and why.
			data = plain
			if e, err := honesty.Embed(plain, h); err == nil {
				data = e
			}
		}
		if joined != nil {
			r.markdown = withHonesty(r.markdown, *joined)
		}
		if transcriptPath != "" {
			r.markdown = withTranscript(r.markdown, transcriptPath, f, stderr)
		}
		switch {
		case f.Status == "failed":
			fmt.Fprintf(stderr, "[agent-harness] report: WARNING: %s: the report's status is failed: the proxy did not start\n", quoteArg(path))
		case f.Status != "finished":
			fmt.Fprintf(stderr, "[agent-harness] report: WARNING: %s: the report's status is %s, not finished: "+
				"its verdict covers only part of the run, and a PASS is not a finished run (exit 3)\n", quoteArg(path), f.Status)
		}
	case campaign.IsSummary(data):
		if transcriptPath != "" {
			return usagef("flag --transcript: %s is a campaign file; --transcript renders one run's transcript beside its report (runs/…/transcript.json with runs/…/report.json)", quoteArg(path))
		}
		if claimPath != "" {
			return usagef("flag --claim: %s is a campaign file; --claim joins one run's claim with its report (a campaign's runs carry their own honesty)", quoteArg(path))
		}
		s, err := campaign.ParseSummary(data)
		if err != nil {
			return fail("%v", err)
		}
		// The campaign's gate, whatever the flags: --not-tested-ok is for a
		// run's NOT_TESTED verdict (SPEC §17.9); a campaign gate's 3 (runs
		// missing, a NOT_TESTED share above --max-not-tested, no judged
		// run) is never made green here — the campaign's own
		// --max-not-tested sets the share it allows.
		r = rendered{junit: campaign.JUnit(s), markdown: campaign.Markdown(s), code: s.Gate.ExitCode}
		if notTestedOK {
			fmt.Fprintf(stderr, "[agent-harness] report: --not-tested-ok does not apply to a campaign file: the exit code is its gate's (%d); the campaign's --max-not-tested sets the NOT_TESTED share it allows\n", r.code)
		}
	default:
		return fail("neither a run report nor a campaign file (expected the JSON report file of agent-harness proxy or judge --report-file, or a campaign.json)")
	}
	switch format {
	case "json":
		_, err = stdout.Write(data)
	case "junit":
		_, err = stdout.Write(r.junit)
	default:
		_, err = io.WriteString(stdout, r.markdown)
	}
	if err != nil {
		return fmt.Errorf("cannot write the output: %w", err)
	}
	return exitCode(r.code)
}

// withHonesty appends the Honesty section to a run's Markdown report.
func withHonesty(md string, h honesty.Result) string {
	return strings.TrimRight(md, "\n") + "\n\n" + honesty.Markdown(h)
}

// withTranscript appends the Transcript section of the transcript at path
// to a run's Markdown report, its tool results matched with the report's
// write attempts. A transcript that cannot be read is said so in the
// section and on stderr; the verdict's exit code stays.
func withTranscript(md, path string, f *report.RunFile, stderr io.Writer) string {
	md = strings.TrimRight(md, "\n") + "\n\n"
	t, err := llmagent.ReadTranscript(path)
	if err != nil {
		fmt.Fprintf(stderr, "[agent-harness] report: WARNING: flag --transcript: %s: %s; not shown\n", quoteArg(path), escape.Line(err.Error()))
		return md + "## Transcript\n\nNot shown: " + escape.Markdown(filepath.Base(path)+": "+err.Error()) + ".\n"
	}
	var attempts []llmagent.Attempt
	for _, op := range f.Report.Operations {
		for i, a := range op.AttemptLog {
			attempts = append(attempts, llmagent.Attempt{Tool: op.Tool, Operation: op.ID, N: i + 1, At: a.At,
				Fault: a.Fault, Outcome: string(a.Outcome), Omitted: op.AttemptLogOmitted > 0})
		}
	}
	return md + llmagent.Markdown(t, attempts)
}

// rendered is a checked file in the two rendered formats, and the exit code
// its verdict (a run) or gate (a campaign) gives.
type rendered struct {
	junit    []byte
	markdown string
	code     int
}
