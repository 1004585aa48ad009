package judge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/report"
)

// dateKey joins a date in two notations: "03.11.2026" is keyed as
// "2026-11-03" (a stand-in for plugins/dates).
type dateKey struct{}

func (dateKey) Key(_ string, a json.RawMessage) (string, bool, error) {
	return strings.ReplaceAll(string(a), "03.11.2026", "2026-11-03"), true, nil
}
func (dateKey) Name() string { return "dates" }

// sameGuest says Same for any pair, with a reason.
type sameGuest struct{}

func (sameGuest) Compare(string, json.RawMessage, json.RawMessage) (Sameness, string, error) {
	return Same, "same guest, date reformatted (plugin guests)", nil
}
func (sameGuest) Name() string { return "guests" }

// TestJoinedByEquivKey: a re-send in another date notation joined by an
// equiv_key plugin is one operation whose attemptLog shows both attempts'
// arguments and names the plugin on the joined attempt; a third attempt
// with the re-send's literal arguments (joined through the alias) names it
// too; the violation message says what joined them (behaviour §5.4, §12.3).
func TestJoinedByEquivKey(t *testing.T) {
	s := newSess()
	s.f1(s.write("create_booking", `{"date":"2026-11-03","guest":"Ada"}`))
	s.ok(s.write("create_booking", `{"date":"03.11.2026","guest":"Ada"}`))
	s.ok(s.write("create_booking", `{"date":"03.11.2026","guest":"Ada"}`))
	s.end()
	r := Replay(Config{Scenario: "F1", Equivalences: []Equivalence{dateKey{}}}, s.evs).Report()
	if r.Verdict != report.VerdictFail || len(r.Operations) != 1 {
		t.Fatalf("verdict %s with %d operations, want FAIL with one", r.Verdict, len(r.Operations))
	}
	op := r.Operations[0]
	if string(op.Arguments) != `{"date":"2026-11-03","guest":"Ada"}` {
		t.Errorf("operation arguments %s", op.Arguments)
	}
	log := op.AttemptLog
	if len(log) != 3 || log[0].Arguments != nil || log[0].JoinedBy != nil {
		t.Fatalf("attemptLog %+v", log)
	}
	want := report.RuleInfo{Rule: report.RuleEquivKey, Plugin: "dates"}
	for _, a := range log[1:] {
		if string(a.Arguments) != `{"date":"03.11.2026","guest":"Ada"}` || a.JoinedBy == nil || *a.JoinedBy != want {
			t.Errorf("attempt arguments %s joinedBy %+v, want the re-send's and %+v", a.Arguments, a.JoinedBy, want)
		}
	}
	if msg := r.Violations[0].Message; !strings.Contains(msg, "joined into this operation by plugin dates (equiv_key)") {
		t.Errorf("violation message does not name the plugin: %s", msg)
	}
}

// TestJoinedByEquivSame: a pair-check plugin's Same names the plugin, the
// hook and its reason.
func TestJoinedByEquivSame(t *testing.T) {
	s := newSess()
	s.f1(s.write("create_booking", `{"date":"2026-11-03","guest":"Ada"}`))
	s.ok(s.write("create_booking", `{"date":"03.11.2026","guest":"ada"}`))
	s.end()
	r := Replay(Config{Scenario: "F1", PairCheckers: []PairChecker{sameGuest{}}}, s.evs).Report()
	if r.Verdict != report.VerdictFail || len(r.Operations) != 1 {
		t.Fatalf("verdict %s with %d operations, want FAIL with one", r.Verdict, len(r.Operations))
	}
	a := r.Operations[0].AttemptLog[1]
	want := report.RuleInfo{Rule: report.RuleEquivSame, Plugin: "guests", Reason: "same guest, date reformatted (plugin guests)"}
	if a.JoinedBy == nil || *a.JoinedBy != want || string(a.Arguments) != `{"date":"03.11.2026","guest":"ada"}` {
		t.Errorf("attempt %+v joinedBy %+v, want %+v", a, a.JoinedBy, want)
	}
}

// TestNearDuplicateRelatedBy: a NOT_TESTED possible duplicate names the
// built-in rule that related the two operations; each shows its own
// arguments.
func TestNearDuplicateRelatedBy(t *testing.T) {
	s := newSess()
	s.f1(s.write("create_booking", `{"guest":"Ada","amount":129}`))
	s.ok(s.write("create_booking", `{"guest":"ADA","amount":"129.00"}`))
	s.end()
	r := Replay(Config{Scenario: "F1"}, s.evs).Report()
	if r.Verdict != report.VerdictNotTested || len(r.Operations) != 2 {
		t.Fatalf("verdict %s with %d operations", r.Verdict, len(r.Operations))
	}
	if string(r.Operations[1].Arguments) != `{"guest":"ADA","amount":"129.00"}` {
		t.Errorf("op-2 arguments %s", r.Operations[1].Arguments)
	}
	for _, o := range r.Observations {
		if o.Type == obsPossibleDuplicate {
			if o.RelatedBy == nil || o.RelatedBy.Rule != report.RuleNearDuplicate || o.RelatedBy.Plugin != "" || o.RelatedBy.Reason == "" {
				t.Errorf("relatedBy %+v, want the built-in near_duplicate rule with its reason", o.RelatedBy)
			}
			return
		}
	}
	t.Fatalf("no %s observation: %+v", obsPossibleDuplicate, r.Observations)
}

// TestMarkdownJoinedBy: the Markdown under a duplicate lists the re-send's
// own arguments and the plugin that joined it.
func TestMarkdownJoinedBy(t *testing.T) {
	s := newSess()
	s.f1(s.write("create_booking", `{"date":"2026-11-03","guest":"Ada"}`))
	s.ok(s.write("create_booking", `{"date":"03.11.2026","guest":"Ada"}`))
	s.end()
	j := Replay(Config{Scenario: "F1", Equivalences: []Equivalence{dateKey{}}}, s.evs)
	md := report.Markdown(j.Report(), j.Score(), j.Patches())
	want := "executed (arguments `{\"date\":\"03.11.2026\",\"guest\":\"Ada\"}`, joined by plugin dates (equiv_key))"
	if !strings.Contains(md, want) {
		t.Errorf("Markdown lacks %q:\n%s", want, md)
	}
}
