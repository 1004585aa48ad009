package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/report"
)

// breakerEquiv is an equivalence plugin whose every call fails, as a
// disabled plugin's do; its host counts the first failure (host) and is
// then told the plugin was disabled.
type breakerEquiv struct{ host *fakePlugins }

func (e breakerEquiv) Key(tool string, _ json.RawMessage) (string, bool, error) {
	err := errors.New("plugin dates disabled after repeated failures")
	if len(e.host.states) == 0 {
		e.host.fail("dates", fmt.Sprintf("equivalence key for %q: %v", tool, err))
	}
	return "", false, err
}
func (breakerEquiv) Name() string { return "dates" }

// breakerPair is the pair-check side of the same plugin.
type breakerPair struct{}

func (breakerPair) Compare(string, json.RawMessage, json.RawMessage) (Sameness, string, error) {
	return Different, "", errors.New("plugin dates disabled after repeated failures")
}
func (breakerPair) Name() string { return "dates" }

// TestPluginDisabledIsNotAFailure: a plugin the host disabled shows as
// disabled; pluginFailures counts only the failed calls, and the run still
// cannot pass.
func TestPluginDisabledIsNotAFailure(t *testing.T) {
	pf := func(r report.Report) report.PluginFailure {
		t.Helper()
		if len(r.PluginFailures) != 1 {
			t.Fatalf("pluginFailures = %+v, want one entry", r.PluginFailures)
		}
		return r.PluginFailures[0]
	}
	runRules(t, []rule{
		{name: "three failed calls then the disable notice count three", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			for range 3 {
				s.pluginFailure("verbs", "classify t: deadline of 100ms exceeded")
			}
			s.pluginDisabled("verbs", "disabled after 3 consecutive failures")
			s.f1(s.write("create_booking", booking))
			s.read()
		}, want: want{verdict: report.VerdictNotTested, total: -1, observations: []string{obsVerifiedNoRetry},
			reason: `Plugin "verbs" failed (classify t: deadline of 100ms exceeded) and was disabled, so the run cannot pass.`,
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
				want := report.PluginFailure{Plugin: "verbs", Status: report.PluginStatusDisabled, Failures: 3, Detail: "classify t: deadline of 100ms exceeded"}
				if got := pf(r); got != want {
					t.Errorf("pluginFailures[0] = %+v, want %+v", got, want)
				}
			}}},
		{name: "failed calls without a disable notice stay failed", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.pluginFailure("verbs", "classify t: trap")
			s.pluginFailure("verbs", "classify u: trap")
			s.f1(s.write("create_booking", booking))
			s.read()
		}, want: want{verdict: report.VerdictNotTested, total: -1, observations: []string{obsVerifiedNoRetry},
			reason: `Plugin "verbs" failed (classify t: trap), so the run cannot pass.`,
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
				if got := pf(r); got.Status != report.PluginStatusFailed || got.Failures != 2 {
					t.Errorf("pluginFailures[0] = %+v, want failed with 2 failures", got)
				}
			}}},
		{name: "a disable notice alone still blocks PASS", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.pluginDisabled("verbs", "disabled after 5 consecutive failures")
			s.f1(s.write("create_booking", booking))
			s.read()
		}, want: want{verdict: report.VerdictNotTested, total: -1, observations: []string{obsVerifiedNoRetry},
			reason: `Plugin "verbs" was disabled (disabled after 5 consecutive failures), so the run cannot pass.`,
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
				if got := pf(r); got.Status != report.PluginStatusDisabled || got.Failures != 0 {
					t.Errorf("pluginFailures[0] = %+v, want disabled with 0 failures", got)
				}
			}}},
		{name: "a repeated disable notice counts nothing", build: func(s *sess) {
			s.pluginFailure("verbs", "classify t: trap")
			s.pluginDisabled("verbs", "disabled after 1 consecutive failures")
			s.pluginDisabled("verbs", "disabled after 1 consecutive failures")
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictNotTested, total: -1,
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
				if got := pf(r); got.Status != report.PluginStatusDisabled || got.Failures != 1 {
					t.Errorf("pluginFailures[0] = %+v, want disabled with 1 failure", got)
				}
			}}},
		{name: "a plugin failure keeps a FAIL and names the disabling in markdown", cfg: Config{Scenario: "F4"}, build: func(s *sess) {
			s.pluginFailure("verbs", "classify t: trap")
			s.pluginDisabled("verbs", "disabled after 1 consecutive failures")
			s.f4(s.write("create_booking", booking))
			s.f4(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchIdempotency}}},
	})
}

// TestPluginErrorIsNoOpinion: the errors of an equivalence and a pair
// checker are no opinion to the judge, which leaves counting them to the
// host (Config.PluginStatus): the built-in key still judges, and the
// report shows the host's status.
func TestPluginErrorIsNoOpinion(t *testing.T) {
	host := &fakePlugins{}
	s := newSess()
	s.f1(s.write("create_booking", `{"a":1}`))
	s.ok(s.write("create_booking", `{"a":2}`))
	s.ok(s.write("create_booking", `{"a":1}`))
	j := s.judge(Config{Scenario: "F1", Equivalences: []Equivalence{breakerEquiv{host}}, PairCheckers: []PairChecker{breakerPair{}},
		PluginStatus: host.status})
	host.disable("dates", "disabled after 1 consecutive failures") // the host's breaker, read at report time
	r := j.Report()
	want := report.PluginFailure{Plugin: "dates", Status: report.PluginStatusDisabled, Failures: 1,
		Detail: `equivalence key for "create_booking": plugin dates disabled after repeated failures`}
	if len(r.PluginFailures) != 1 || r.PluginFailures[0] != want {
		t.Errorf("pluginFailures = %+v, want [%+v]", r.PluginFailures, want)
	}
	// The built-in key still judges: the third write repeats the ghost write.
	if v, reason := j.Verdict(); v != report.VerdictFail || !strings.Contains(reason, "again after a timeout") {
		t.Errorf("verdict %s (%s), want FAIL after the timeout", v, reason)
	}
	if md := j.Markdown(); !strings.Contains(md, "- dates: 1 failure(s), disabled: ") {
		t.Errorf("markdown lacks the disabled plugin:\n%s", md)
	}
}
