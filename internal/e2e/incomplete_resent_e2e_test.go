package e2e

import (
	"strings"
	"testing"
)

// TestInputRequiredResentFromScratchNotTested (red-team finding 1, behaviour
// §4.12): the upstream executes create_booking and answers input_required;
// the agent sends the call again from scratch and F1 fires on that call,
// which executes. That the first leg did not run is the upstream's word
// only, so the report the user reads is NOT_TESTED naming the
// input_required leg, the operation EXECUTION_UNKNOWN with its one counted
// execution — never PASS, and no DUPLICATE_EXECUTION the wire cannot prove.
func TestInputRequiredResentFromScratchNotTested(t *testing.T) {
	t.Parallel()
	r := runInputRequiredResent(t)
	const why = "one of them was answered input_required and never followed up: whether it ran is the upstream's word only"
	if r.Verdict != "NOT_TESTED" || !strings.Contains(r.Report.VerdictReason, why) {
		t.Errorf("verdict %s (%s), want NOT_TESTED naming the input_required leg", r.Verdict, r.Report.VerdictReason)
	}
	if ops := r.Report.Operations; len(ops) != 1 || ops[0].Outcome != "EXECUTION_UNKNOWN" || ops[0].Executions != 1 {
		t.Errorf("operations %+v, want one EXECUTION_UNKNOWN operation with 1 execution", ops)
	}
}
