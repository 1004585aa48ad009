package judge

import (
	"reflect"
	"testing"
)

// TestAlerts: each violation of an operation raises one alert at the event
// that created it, with the wording of the verdict; later executions of the
// same operation raise none, and a clean session raises none at all.
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
			s.ok(s.write("create_booking", args)) // a third execution: no new alert
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
