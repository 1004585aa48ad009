package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/report"
)

// arenaModel is the obvious implementation of an arena: one string per
// entry, joined on output.
type arenaModel []string

func (m *arenaModel) set(i int, enc string) {
	for len(*m) <= i {
		*m = append(*m, "")
	}
	(*m)[i] = enc
}

func (m arenaModel) String() string {
	var parts []string
	for _, e := range m {
		if e != "" {
			parts = append(parts, e[1:]) // drop the leading comma
		}
	}
	return strings.Join(parts, ",")
}

// emitted returns what a.emit writes into a JSON array opened before it,
// and whether the array is still empty.
func emitted(a *arena) (string, bool) {
	first := true
	dst := a.emit([]byte("["), &first)
	return string(append(dst, ']')), first
}

type arenaSet struct {
	i   int
	enc string
}

func TestArena(t *testing.T) {
	tests := []struct {
		name string
		sets []arenaSet
		want string
	}{
		{"empty", nil, ""},
		{"appended in order", []arenaSet{{0, ",1"}, {1, ",22"}, {2, ",333"}}, "1,22,333"},
		{"same size rewritten in place", []arenaSet{{0, ",1"}, {1, ",22"}, {0, ",9"}}, "9,22"},
		{"last entry grows at the end", []arenaSet{{0, ",1"}, {1, ",22"}, {1, ",4444"}}, "1,4444"},
		{"last entry shrinks at the end", []arenaSet{{0, ",1"}, {1, ",4444"}, {1, ",2"}}, "1,2"},
		{"middle entry grows out of order", []arenaSet{{0, ",1"}, {1, ",22"}, {2, ",3"}, {1, ",55555"}}, "1,55555,3"},
		{"first entry emptied", []arenaSet{{0, ",1"}, {1, ",22"}, {0, ""}}, "22"},
		{"middle entry emptied", []arenaSet{{0, ",1"}, {1, ",22"}, {2, ",3"}, {1, ""}}, "1,3"},
		{"last entry emptied", []arenaSet{{0, ",1"}, {1, ",22"}, {1, ""}}, "1"},
		{"all empty", []arenaSet{{0, ""}, {1, ""}, {2, ""}}, ""},
		{"index skipped", []arenaSet{{2, ",3"}, {0, ",1"}}, "1,3"},
		{"emptied then set again", []arenaSet{{0, ",1"}, {1, ",2"}, {0, ""}, {0, ",777"}}, "777,2"},
		{"several entries", []arenaSet{{0, `,{"a":1},{"b":2}`}, {1, `,{"c":3}`}}, `{"a":1},{"b":2},{"c":3}`},
	}
	for _, tt := range tests {
		for _, compactEach := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/compact=%v", tt.name, compactEach), func(t *testing.T) {
				var a arena
				for _, s := range tt.sets {
					a.set(s.i, []byte(s.enc))
					if compactEach {
						a.compact()
					}
				}
				got, first := emitted(&a)
				if want := "[" + tt.want + "]"; got != want {
					t.Errorf("got %s, want %s", got, want)
				}
				if first != (tt.want == "") {
					t.Errorf("first = %v after writing %q", first, tt.want)
				}
			})
		}
	}
}

// TestArenaMatchesModel applies random changes (sizes that stay, grow and
// shrink, emptied entries, new entries) and compares with the model after
// each, with compaction at its thresholds (here low) as AppendFile does.
func TestArenaMatchesModel(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 7))
		a := arena{maxMoves: 1 + int(seed%5), minDead: 1 + int(seed%3)*50}
		var m arenaModel
		for step := range 2000 {
			i := r.IntN(3 + step/10)
			var enc string
			if r.IntN(6) > 0 {
				enc = "," + strings.Repeat(string(rune('a'+r.IntN(26))), r.IntN(12))
			}
			a.set(i, []byte(enc))
			m.set(i, enc)
			if a.needsCompaction() {
				a.compact()
			}
			if got, want := mustEmit(&a), "["+m.String()+"]"; got != want {
				t.Fatalf("seed %d step %d: got %q, want %q", seed, step, got, want)
			}
			if a.dead < 0 || a.dead > len(a.buf) {
				t.Fatalf("seed %d step %d: dead %d of %d bytes", seed, step, a.dead, len(a.buf))
			}
		}
	}
}

func mustEmit(a *arena) string {
	s, _ := emitted(a)
	return s
}

// TestAppendFileAfterOutOfOrderChanges: sessions that keep changing old
// operations (moves out of order, compactions at every opportunity) still
// write the report of json.Marshal(Report()) after every event.
func TestAppendFileAfterOutOfOrderChanges(t *testing.T) {
	for seed := range uint64(6) {
		// The seeds are independent: each runs while the others do.
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(seed, 11))
			s := newSess()
			var open []int64
			for range 400 {
				s.wait(int64(r.IntN(2000)))
				switch k := r.IntN(10); {
				case k < 5:
					args := fmt.Sprintf(`{"guest":"g%d","idempotency_key":"k%d"}`, r.IntN(40), r.IntN(8))
					open = append(open, s.call("create_booking", classify.Write, args))
				case k < 6:
					s.read()
				case len(open) > 0:
					i := r.IntN(len(open))
					id := open[i]
					open = append(open[:i], open[i+1:]...)
					switch r.IntN(6) {
					case 0:
						s.f1(id)
					case 1:
						s.rejected(id)
					case 2:
						s.unknown(id)
					case 3:
						s.answer(id, UnknownTool, "", "") // the operation may stop being live
					default:
						s.ok(id)
					}
				}
			}
			j := New(Config{Scenario: "F1"})
			if seed%2 == 0 {
				for _, a := range []*arena{&j.enc.ops, &j.enc.viol, &j.enc.obs, &j.enc.keys} {
					a.maxMoves, a.minDead = 1, 1
				}
			}
			var buf []byte
			for i, ev := range s.evs {
				j.Apply(ev)
				buf = j.AppendFile(buf[:0], report.FileMeta{})
				var file struct {
					Report json.RawMessage `json:"report"`
				}
				if err := json.Unmarshal(buf, &file); err != nil {
					t.Fatalf("seed %d event %d: %v", seed, i, err)
				}
				want, _ := json.Marshal(j.Report())
				if !bytes.Equal(file.Report, want) {
					t.Fatalf("seed %d event %d: file report differs:\n%s", seed, i, lineDiff(indent(want), indent(file.Report)))
				}
			}
			if got, want := j.AppendFile(nil, report.FileMeta{}), Replay(Config{Scenario: "F1"}, s.evs).AppendFile(nil, report.FileMeta{}); !bytes.Equal(got, want) {
				t.Fatalf("seed %d: live and replay differ", seed)
			}
		})
	}
}
