package trace

import (
	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/report"
)

// rejudge is Rejudge with o.Judge and o.Classify composed from o.Settings
// as harness.Rejudge composes them without plugins (keeping a PluginStatus
// the test set). Package trace cannot import internal/harness, which
// imports it; the e2e judge tests and harness's own tests go through
// harness.Rejudge.
func rejudge(tr *Trace, o Options) (*judge.Judge, report.FileMeta) {
	s := o.Settings
	o.Judge = judge.Config{KeyFields: canon.ParseKeyFields(s.KeyFields), Scenario: s.Scenario, Kind: s.Kind,
		RedactArguments: s.RedactArguments, PluginStatus: o.Judge.PluginStatus}
	o.Classify = classify.NewChain(classify.ChainOptions{WriteTools: s.WriteTools, ReadTools: s.ReadTools,
		IdempotentTools: s.IdempotentTools, IgnoreIdempotentHint: s.IgnoreIdempotentHint}).Classify
	return Rejudge(tr, o)
}
