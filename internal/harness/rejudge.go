package harness

import (
	"time"

	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/report"
	"github.com/cuonztech/agent-harness/internal/trace"
)

// Rejudge judges a recorded trace again (`agent-harness judge`,
// host/replay): the session's Config is the one o.Settings record
// (FromSettings; the header's, with the settings given replaced), and its
// judge and classification chain are composed as for the live session,
// with the plugins' hooks of pp (nil: none). See trace.Rejudge.
func Rejudge(tr *trace.Trace, o trace.Options, pp *Plugins) (*judge.Judge, report.FileMeta) {
	c := FromSettings(o.Settings)
	var ex Extras
	if pp != nil {
		ex = pp.Extras("") // the recorded calls keep their recorded faults
		o.Classify = c.Classifier(pp.Classifiers())
	} else {
		o.Classify = c.Classifier(nil)
	}
	o.Judge = c.JudgeConfig(o.Settings.Scenario, ex, time.Time{}) // trace.Rejudge sets its own start
	return trace.Rejudge(tr, o)
}
