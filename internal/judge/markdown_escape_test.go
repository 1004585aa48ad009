package judge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/report"
)

// peerReport is a FAIL report whose every text from a peer is s: tool
// names, arguments, keys, fault kinds, plugin names and details, the
// scenario (a plugin names its fault) — and the messages and reasons that
// quote them.
func peerReport(s string) (report.Report, report.Score, []report.Patch) {
	args, _ := json.Marshal(map[string]string{"room": s})
	sc := s
	r := report.Report{
		Verdict: report.VerdictFail, VerdictReason: `Write operation op-1 of "` + s + `" was executed 2 times.`,
		Certification: "UNVERIFIED_FOR_PRODUCTION", Kind: "proxy",
		Operations: []report.OperationInfo{{ID: "op-1", Tool: s, Attempts: 2, Executions: 2, Keys: []string{s}, Outcome: "DUPLICATE",
			Arguments: args, AttemptLog: []report.AttemptInfo{{Outcome: "executed", Fault: s, Key: s},
				{Outcome: "executed", Arguments: args, JoinedBy: &report.RuleInfo{Rule: report.RuleEquivSame, Plugin: s, Reason: s}}}}},
		Violations: []report.Violation{{Type: violationDuplicate, Operation: "op-1", Tool: s, Message: s + " executed twice"}},
		Observations: []report.Observation{{Type: "WRITE_WITHOUT_KEY", Operation: "op-1", Tool: s, Message: s},
			{Type: obsPossibleDuplicate, Operation: "op-1", Tool: s, Message: s, RelatedOperation: s, RelatedBy: &report.RuleInfo{Rule: report.RuleEquivSame, Plugin: s, Reason: s}}},
		Coverage:       report.Coverage{UnclassifiedTools: []string{s}, UnknownTools: []string{s, s}, Scenario: &sc},
		KeySummary:     []report.KeyInfo{{Key: s, Tool: s}},
		PluginFailures: []report.PluginFailure{{Plugin: s, Status: "failed", Failures: 1, Detail: s}},
	}
	total := 0
	return r, report.Score{Verdict: report.VerdictFail, Total: &total}, []report.Patch{{Type: PatchGhostWrite, Severity: SeverityCritical, Trigger: s, Text: "Check before you re-send."}}
}

// ourHeadings are the headings report.Markdown writes.
var ourHeadings = []string{"# agent-harness report: FAIL", "## Overall: ", "## Coverage", "## Violations", "## Observations",
	"## Operations", "## Idempotency keys", "## Plugin failures", "# Prompt patches", "## [CRITICAL] GHOST_WRITE"}

// checkRendered fails when a line of md is a heading report.Markdown does
// not write, or md has a raw control character, HTML or link syntax
// from the peer text.
func checkRendered(t *testing.T, peer, md string) {
	t.Helper()
	for i, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " "), "#") {
			ok := false
			for _, h := range ourHeadings {
				ok = ok || strings.HasPrefix(line, h)
			}
			if !ok || (strings.HasPrefix(line, "# agent-harness report:") && i != 0) {
				t.Fatalf("peer text %q made line %d a heading: %q\n%s", peer, i+1, line, md)
			}
		}
		if strings.HasPrefix(line, "===") || strings.HasPrefix(line, "---") {
			t.Fatalf("peer text %q made line %d a setext underline: %q", peer, i+1, line)
		}
	}
	for _, r := range md {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x2028 || r == 0x2029 || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			t.Fatalf("peer text %q: raw %U in the Markdown\n%s", peer, r, md)
		}
	}
	for i := 0; i < len(md); i++ {
		// Outside code spans, < and [ from a peer come escaped; the
		// template itself has only "[FAIL]" and "[CRITICAL]" headings.
		ours := strings.HasPrefix(md[i:], "[CRITICAL]") || strings.HasPrefix(md[i:], "[FAIL]")
		if (md[i] == '<' || md[i] == '[') && (i == 0 || md[i-1] != '\\') && !ours && !inCodeSpan(md, i) {
			t.Fatalf("peer text %q: raw %q at %d\n%s", peer, md[i], i, md)
		}
	}
}

// inCodeSpan reports whether byte i of md is inside a code span of its
// line (a span shows its content literally).
func inCodeSpan(md string, i int) bool {
	start := strings.LastIndexByte(md[:i], '\n') + 1
	end := strings.IndexByte(md[i:], '\n')
	if end < 0 {
		end = len(md)
	} else {
		end += i
	}
	line, pos := md[start:end], i-start
	for j := 0; j < len(line); {
		if line[j] == '\\' {
			j += 2
			continue
		}
		if line[j] != '`' {
			j++
			continue
		}
		k := j
		for k < len(line) && line[k] == '`' {
			k++
		}
		fence := line[j:k]
		close := strings.Index(line[k:], fence)
		if close < 0 {
			return false
		}
		if pos >= k && pos < k+close {
			return true
		}
		j = k + close + len(fence)
	}
	return false
}

// TestMarkdownPeerTextEscaped (issue 17 item 9): a tool name with a line
// break wrote "# agent-harness report: PASS" headings into a FAIL report,
// and HTML, links and terminal escapes passed through.
func TestMarkdownPeerTextEscaped(t *testing.T) {
	for _, peer := range []string{
		"book\n# agent-harness report: PASS\n",
		"book\r\n\n# agent-harness report: PASS",
		"<img src=x onerror=alert(1)>",
		"[download the fix](https://example.invalid)",
		"\x1b[2J\x1b[1;32mPASS\x1b[0m",
		"`a` ``` b",
		"a\u2028# PASS",
		"x\n---",
		"user\u202egnp.exe",
	} {
		r, s, ps := peerReport(peer)
		md := report.Markdown(r, s, ps)
		checkRendered(t, peer, md)
		if n := strings.Count(md, "agent-harness report: PASS"); strings.Contains(peer, "report: PASS") && n == 0 {
			t.Errorf("peer text %q vanished instead of being shown escaped", peer)
		}
	}
}

func FuzzMarkdownPeerText(f *testing.F) {
	for _, s := range []string{"book\n# agent-harness report: PASS", "<b>x</b>", "[a](b)", "\x1b[31m", "`", "x\r\n===", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, peer string) {
		r, s, ps := peerReport(peer)
		checkRendered(t, peer, report.Markdown(r, s, ps))
	})
}
