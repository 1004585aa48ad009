package judge

import (
	"github.com/cuonztech/agent-harness/internal/escape"
	"github.com/cuonztech/agent-harness/internal/report"
)

// Markdown renders the report, score and patches for cuonztech__get_report
// (the default format).
func (j *Judge) Markdown() string {
	j.mu.Lock()
	r := j.report()
	s := scoreOf(r.Verdict, j.tally())
	ps := j.patches()
	st := j.stateInfo()
	j.mu.Unlock()
	return report.Markdown(r, s, ps, st)
}

// ScoreText renders the compact score for cuonztech__get_score: verdict,
// total, dimensions and the patches.
func (j *Judge) ScoreText() string {
	j.mu.Lock()
	v, reason := j.verdict()
	s := scoreOf(v, j.tally())
	ps := j.patches()
	j.mu.Unlock()
	return report.ScoreMarkdown(s) + "\n" + escape.Markdown(reason) + "\n" + report.PatchesMarkdown(ps)
}
