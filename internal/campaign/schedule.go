package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
)

// Event tells the progress display about a run that finished.
type Event struct {
	Unit    Unit
	Record  Record
	Done    int // finished runs of the slice so far, kept ones included
	Running int
	Total   int // runs in the slice
}

// LoadRecord reads the record of unit u under out; ok is false when the
// run is not finished (no record, or one that does not belong to u).
func LoadRecord(out string, u Unit) (Record, bool) {
	b, err := os.ReadFile(filepath.Join(out, u.Dir(), RecordFile))
	if err != nil {
		return Record{}, false
	}
	var r Record
	if json.Unmarshal(b, &r) != nil || r.Variant != u.Variant || r.Scenario != u.Scenario || r.Run != u.N ||
		r.Seed != u.Seed || r.Verdict == "" {
		return Record{}, false
	}
	if r.Verdict != NotTested && r.ReportStatus != "finished" {
		// A verdict taken from a report that was not final (the build
		// before b28dc24 wrote such records): judged again from the run's
		// report files, as a new run is (behaviour §9.4) — a report still
		// running is NOT_TESTED, never a PASS the gate counts.
		return rejudge(filepath.Join(out, u.Dir()), r), true
	}
	if r.Honesty == nil {
		// A record of a build before honesty: joined from the run's files.
		joinRun(&r, filepath.Join(out, u.Dir()))
	}
	return r, true
}

// rejudge judges record r again from the report files in dir and how its
// agent ended.
func rejudge(dir string, r Record) Record {
	ex := agentExit{code: r.AgentExitCode, signal: r.AgentSignal, timedOut: r.TimedOut}
	n := Record{Variant: r.Variant, Scenario: r.Scenario, Run: r.Run, Seed: r.Seed, Dir: r.Dir, AgentWallMs: r.AgentWallMs,
		Violations: []string{}, Observations: []string{}, Patches: []Patch{}}
	judgeRun(&n, dir, ex, 0)
	return n
}

// Hooks tell a progress display what happens; nil fields are skipped.
// They are called one at a time.
type Hooks struct {
	// Start: the kept records (finished earlier) of total runs.
	Start func(kept []Record, total int)
	// Running: the number of runs in flight changed.
	Running func(n int)
	// Done: a run finished.
	Done func(Event)
}

// RunAll runs the units that have no record yet, parallel at a time, in
// order, and returns the records of every unit (kept and new, in the
// order of units) with the number kept. When ctx ends it stops the runs in
// flight, starts no more and returns ErrInterrupted with what finished.
func (r *Runner) RunAll(ctx context.Context, units []Unit, parallel int, h Hooks) (recs []Record, kept int, err error) {
	have := make([]*Record, len(units))
	var todo []int
	var keptRecs []Record
	for i, u := range units {
		if rec, ok := LoadRecord(r.Out, u); ok {
			have[i] = &rec
			keptRecs = append(keptRecs, rec)
			kept++
		} else {
			todo = append(todo, i)
		}
	}
	if h.Start != nil {
		h.Start(keptRecs, len(units))
	}
	var (
		mu       sync.Mutex
		done     = kept
		running  int
		firstErr error
		wg       sync.WaitGroup
	)
	next := make(chan int)
	go func() {
		defer close(next)
		for _, i := range todo {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	for range max(parallel, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if ctx.Err() != nil {
					continue
				}
				mu.Lock()
				running++
				if h.Running != nil {
					h.Running(running)
				}
				mu.Unlock()
				rec, err := r.Do(ctx, units[i])
				mu.Lock()
				running--
				if err != nil {
					if firstErr == nil && !errors.Is(err, ErrInterrupted) {
						firstErr = err
					}
					mu.Unlock()
					continue
				}
				have[i] = &rec
				done++
				ev := Event{Unit: units[i], Record: rec, Done: done, Running: running, Total: len(units)}
				if h.Done != nil {
					h.Done(ev)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, h := range have {
		if h != nil {
			recs = append(recs, *h)
		}
	}
	switch {
	case firstErr != nil:
		return recs, kept, firstErr
	case ctx.Err() != nil && len(recs) < len(units):
		return recs, kept, ErrInterrupted
	}
	return recs, kept, nil
}
