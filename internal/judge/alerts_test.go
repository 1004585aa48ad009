package judge

import (
	"reflect"
	"testing"
)

// TestAlerts: each violation of an operation raises one alert at the event
// that created it, with the wording of the verdict, and a clean session
// raises none at all (TestAlertsCountGrows: later executions).
func TestAlerts(t *testing.T) {
	const args = `{"guest":"Ada","date":"2026-11-03"}`
	tests := []struct {
		name  string
		build func(s *sess)
		// atEvent is the index of the event after which the alerts appear.
		atEvent int
		want    []Alert
	}{
		{name: "F1 ghost write re-sent", build: func(s *sess) {
			s.f1(s.write("create_booking", args))
			s.ok(s.write("create_booking", args))
		}, atEvent: 5, want: []Alert{{Type: violationDuplicate, Tool: "create_booking", Operation: "op-1", Executions: 2, Note: "again after a timeout"}}},
		{name: "F4 plain duplicate", build: func(s *sess) {
			s.f4(s.write("create_booking", args))
			s.f4(s.write("create_booking", args))
		}, atEvent: 5, want: []Alert{{Type: violationDuplicate, Tool: "create_booking", Operation: "op-1", Executions: 2}}},
		{name: "parallel duplicate", build: func(s *sess) {
			a, b := s.write("create_booking", args), s.write("create_booking", args)
			s.ok(a)
			s.ok(b)
		}, atEvent: 5, want: []Alert{{Type: violationDuplicate, Tool: "create_booking", Operation: "op-1", Executions: 2, Note: "attempts sent in parallel"}}},
		{name: "F2 early re-send", build: func(s *sess) {
			s.f2(s.write("create_booking", args), 60000)
			s.wait(1200)
			s.ok(s.write("create_booking", args))
		}, atEvent: 2, want: []Alert{{Type: violationRetryAfter, Tool: "create_booking", Operation: "op-1", WaitedMs: 1200, RequiredMs: 60000}}},
		{name: "F3 retry is no violation", build: func(s *sess) {
			s.f3(s.write("create_booking", args))
			s.ok(s.write("create_booking", args))
		}, atEvent: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSess()
			tt.build(s)
			s.end()
			j := New(Config{})
			for i, ev := range s.evs {
				j.Apply(ev)
				n := j.AlertCount()
				switch {
				case i < tt.atEvent && n != 0:
					t.Fatalf("after event %d (%s): %d alert(s), want none yet", i, ev.Kind, n)
				case i >= tt.atEvent && n != len(tt.want):
					t.Fatalf("after event %d (%s): %d alert(s), want %d", i, ev.Kind, n, len(tt.want))
				}
			}
			if got := j.AlertsSince(0); !reflect.DeepEqual(got, tt.want) && len(got)+len(tt.want) > 0 {
				t.Errorf("alerts\n got %+v\nwant %+v", got, tt.want)
			}
			if got := j.AlertsSince(len(tt.want)); got != nil {
				t.Errorf("AlertsSince(all) = %+v, want nil", got)
			}
		})
	}
}

// TestAlertsCountGrows (issue 17, §17.9): each further execution of a
// duplicated operation raises one more alert with the new count, so the
// last alert of an operation says the count of the final report; a
// retry_after violation is raised once.
func TestAlertsCountGrows(t *testing.T) {
	const args = `{"guest":"Ada","date":"2026-11-03"}`
	s := newSess()
	s.f1(s.write("create_booking", args))
	s.ok(s.write("create_booking", args))
	s.ok(s.write("create_booking", args))
	s.ok(s.write("create_booking", args))
	s.end()
	j := New(Config{})
	for _, ev := range s.evs {
		j.Apply(ev)
	}
	var counts []int
	for _, a := range j.AlertsSince(0) {
		counts = append(counts, a.Executions)
	}
	if !reflect.DeepEqual(counts, []int{2, 3, 4}) {
		t.Errorf("alerts' executions %v, want [2 3 4]", counts)
	}
	if r := j.Report(); len(r.Operations) != 1 || r.Operations[0].Executions != 4 {
		t.Errorf("report operations %+v, want op-1 with 4 executions", r.Operations)
	}
}
