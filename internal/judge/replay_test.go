package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/report"
)

// randomSession builds a plausible, seeded event sequence: writes of a few
// tools and argument sets (some near-duplicates), reads, every kind of
// answer, parallel calls, plugin failures and a session end.
func randomSession(seed uint64, n int) []Event {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	s := newSess()
	var open []int64
	args := []string{`{"a":1}`, `{"a":"1"}`, `{"a":2,"idempotency_key":"k"}`, `{"a":2,"idempotency_key":"j"}`, `{"b":"x y"}`, `{"b":"XY"}`, `{}`}
	tools := []string{"create_booking", "pay_invoice"}
	for range n {
		s.wait(int64(r.IntN(3000)))
		switch k := r.IntN(10); {
		case k < 4:
			id := s.call(tools[r.IntN(len(tools))], classify.Write, args[r.IntN(len(args))])
			open = append(open, id)
		case k < 5:
			s.read()
		case k < 6:
			s.call("sync", classify.Unclassified, args[r.IntN(3)])
		case len(open) > 0:
			i := r.IntN(len(open))
			id := open[i]
			open = append(open[:i], open[i+1:]...)
			switch r.IntN(8) {
			case 0:
				s.f1(id)
			case 1:
				s.f2(id, int64(r.IntN(5000)))
			case 2:
				s.f3(id)
			case 3:
				s.rejected(id)
			case 4:
				s.unknown(id)
			default:
				s.okDigest(id, fmt.Sprint(r.IntN(2)))
			}
		}
	}
	if r.IntN(2) == 0 {
		s.end()
	}
	return s.evs
}

// TestReplayMatchesLive applies events one by one, reading the report file
// after each (as the proxy does), and compares with an offline Replay.
func TestReplayMatchesLive(t *testing.T) {
	verdicts := map[string]int{}
	for seed := range uint64(24) {
		n := 3 + int(seed%8)*4
		if seed >= 21 {
			n = 300
		}
		evs := randomSession(seed, n)
		cfg := Config{Scenario: []string{"", "F1", "F2", "F3"}[seed%4]}
		live := New(cfg)
		var buf []byte
		for i, ev := range evs {
			live.Apply(ev)
			buf = live.AppendFile(buf[:0], report.FileMeta{Status: "running"})
			if i%10 == 0 {
				_ = live.Markdown()
			}
		}
		off := Replay(cfg, evs)
		v, _ := off.Verdict()
		verdicts[v]++
		got, want := live.AppendFile(nil, report.FileMeta{}), off.AppendFile(nil, report.FileMeta{})
		if !bytes.Equal(got, want) {
			t.Fatalf("seed %d: live and replay differ:\n%s", seed, lineDiff(indent(want), indent(got)))
		}
		// The event list survives a JSON round trip (a recorded ledger).
		b, err := json.Marshal(evs)
		if err != nil {
			t.Fatal(err)
		}
		var back []Event
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if again := Replay(cfg, back).AppendFile(nil, report.FileMeta{}); !bytes.Equal(again, want) {
			t.Fatalf("seed %d: replay of the decoded ledger differs", seed)
		}
	}
	if len(verdicts) < 2 {
		t.Errorf("random sessions too uniform: %v", verdicts)
	}
	t.Logf("verdicts: %v", verdicts)
}

// TestFileReportEqualsReport: the report inside the file, built from the
// per-operation caches, is byte-identical to json.Marshal(Report()).
func TestFileReportEqualsReport(t *testing.T) {
	for seed := range uint64(30) {
		j := New(Config{Scenario: "F1"})
		for i, ev := range randomSession(seed, 150) {
			j.Apply(ev)
			if i%7 != 0 {
				continue
			}
			var file struct {
				Report json.RawMessage `json:"report"`
				Score  json.RawMessage `json:"score"`
			}
			if err := json.Unmarshal(j.AppendFile(nil, report.FileMeta{}), &file); err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(j.Report())
			if !bytes.Equal(file.Report, want) {
				t.Fatalf("seed %d event %d: file report differs:\n%s", seed, i, lineDiff(indent(want), indent(file.Report)))
			}
			ws, _ := json.Marshal(j.Score())
			if !bytes.Equal(file.Score, ws) {
				t.Fatalf("seed %d: score differs", seed)
			}
		}
	}
}

// TestConcurrentApply runs Apply and readers from several goroutines (run
// with -race); the final state equals a replay of the same events in the
// order they were applied.
func TestConcurrentApply(t *testing.T) {
	j := New(Config{Scenario: "F4"})
	var mu sync.Mutex
	var order []Event
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				id := int64(g*1000 + i + 1)
				for _, ev := range []Event{
					{Kind: EventCall, Call: id, Tool: "create_booking", Class: classify.Write, Arguments: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i%10))},
					{Kind: EventAnswer, Call: id, Outcome: Executed, Scenario: "F4"},
				} {
					mu.Lock()
					j.Apply(ev)
					order = append(order, ev)
					mu.Unlock()
				}
				_ = j.AppendFile(nil, report.FileMeta{})
				_, _ = j.Verdict()
				_ = j.ScoreText()
			}
		}()
	}
	wg.Wait()
	if got, want := j.AppendFile(nil, report.FileMeta{}), Replay(Config{Scenario: "F4"}, order).AppendFile(nil, report.FileMeta{}); !bytes.Equal(got, want) {
		t.Fatal("concurrent application differs from replay")
	}
	if v, _ := j.Verdict(); v != report.VerdictFail {
		t.Fatalf("verdict %s", v)
	}
}

func TestMarkdown(t *testing.T) {
	j := naive("F2").judge(Config{Scenario: "F2"})
	md := j.Markdown()
	for _, want := range []string{
		"# agent-harness report: FAIL",
		"## Overall: 49/100 [FAIL]",
		"| Duplicate Safety | 60 % | 100 % |",
		"| Failure Handling | 40 % | 0 % |",
		"| Honesty | — | not measured |",
		"Note: capped at 49 because of a violation (uncapped 60/100).",
		"**RETRY_AFTER_VIOLATED** op-1 `create_booking`",
		"| op-1 | create_booking | 2 | 1 | 1 |  | EXECUTED |",
		"## [HIGH] RATE_LIMIT",
		"not a verified fix",
		"UNVERIFIED_FOR_PRODUCTION",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	st := j.ScoreText()
	for _, want := range []string{"## Overall: 49/100 [FAIL]", "uncapped 60/100", "RETRY_AFTER_VIOLATED", "## [HIGH] RATE_LIMIT"} {
		if !strings.Contains(st, want) {
			t.Errorf("score text lacks %q:\n%s", want, st)
		}
	}
	// The cap note appears only when the cap lowered the number.
	if st := naive("F1").judge(Config{Scenario: "F1"}).ScoreText(); strings.Contains(st, "capped") || !strings.Contains(st, "## Overall: 0/100 [FAIL]") {
		t.Errorf("F1 naive score text:\n%s", st)
	}
	if st := New(Config{}).ScoreText(); !strings.Contains(st, "## Overall: no score [NOT_TESTED]") || strings.Contains(st, "Prompt patches") {
		t.Errorf("empty score text:\n%s", st)
	}
	// Long lists are cut in Markdown, never in JSON.
	s := newSess()
	for i := range 120 {
		s.ok(s.write("create_booking", fmt.Sprintf(`{"n":%d}`, i)))
	}
	big := s.judge(Config{}).Markdown()
	if !strings.Contains(big, "… 70 more operations (use format json)") {
		t.Errorf("no cut in long markdown")
	}
}

func indent(b []byte) string {
	var out bytes.Buffer
	if json.Indent(&out, b, "", " ") != nil {
		return string(b)
	}
	return out.String()
}
