package campaign

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/cuonztech/agent-harness/internal/escape"
)

// Progress prints a line per finished run and, on a terminal, one live
// status line (behaviour §9).
type Progress struct {
	W     io.Writer
	TTY   bool
	Quiet bool
	Now   func() time.Time

	mu                    sync.Mutex
	start                 time.Time
	kept, done, total     int
	running               int
	pass, fail, notTested int
	statusShown           bool
	stop                  chan struct{}
}

// Hooks returns the hooks that drive the display.
func (p *Progress) Hooks() Hooks {
	return Hooks{Start: p.Start, Running: p.Running, Done: p.Done}
}

// Start begins the display: kept runs were finished before.
func (p *Progress) Start(keptRecs []Record, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.Now == nil {
		p.Now = time.Now
	}
	kept := len(keptRecs)
	p.start, p.kept, p.done, p.total = p.Now(), kept, kept, total
	for _, r := range keptRecs {
		p.count(r.Verdict)
	}
	if p.Quiet {
		return
	}
	if kept > 0 {
		p.line(fmt.Sprintf("kept %d finished run(s) from an earlier start; %d to run", kept, total-kept))
	}
	if p.TTY {
		p.stop = make(chan struct{})
		go p.tick(p.stop)
		p.status()
	}
}

func (p *Progress) tick(stop <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			p.mu.Lock()
			p.status()
			p.mu.Unlock()
		case <-stop:
			return
		}
	}
}

// Running sets the number of runs in flight.
func (p *Progress) Running(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running = n
	if !p.Quiet && p.TTY {
		p.status()
	}
}

// Done reports a finished run.
func (p *Progress) Done(ev Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.running = ev.Done, ev.Running
	p.count(ev.Record.Verdict)
	if p.Quiet {
		return
	}
	p.line(RunLine(ev))
}

func (p *Progress) count(verdict string) {
	switch verdict {
	case Pass:
		p.pass++
	case Fail:
		p.fail++
	default:
		p.notTested++
	}
}

// Stop ends the live status line.
func (p *Progress) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stop != nil {
		close(p.stop)
		p.stop = nil
	}
	if p.statusShown {
		fmt.Fprint(p.W, "\r\x1b[K")
		p.statusShown = false
	}
}

// RunLine is the progress line of a finished run:
// run 7/60 F1#3 FAIL DUPLICATE_EXECUTION 12.4 s
func RunLine(ev Event) string {
	r := ev.Record
	parts := []string{fmt.Sprintf("run %d/%d", ev.Done, ev.Total), ev.Unit.Label(), r.Verdict}
	if r.Verdict == Fail {
		parts = append(parts, escape.Line(strings.Join(dedupe(r.Violations), ",")))
	}
	parts = append(parts, fmt.Sprintf("%.1f s", r.AgentWallMs/1000))
	line := strings.Join(parts, " ")
	if r.Verdict == NotTested {
		line += ": " + escape.Line(r.Reason) // peer text (behaviour §7.5)
	}
	return line
}

func dedupe(xs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// line prints one line, above the status line on a terminal; p.mu held.
func (p *Progress) line(s string) {
	if p.statusShown {
		fmt.Fprint(p.W, "\r\x1b[K")
		p.statusShown = false
	}
	fmt.Fprintf(p.W, "[agent-harness] campaign: %s\n", s)
	if p.TTY && p.stop != nil {
		p.status()
	}
}

// status redraws the live status line; p.mu held.
func (p *Progress) status() {
	if !p.TTY || p.Quiet {
		return
	}
	left := p.total - p.done - p.running
	eta := "—"
	if fresh := p.done - p.kept; fresh > 0 {
		el := p.Now().Sub(p.start)
		rest := time.Duration(float64(el) / float64(fresh) * float64(p.total-p.done))
		eta = rest.Round(time.Second).String()
	}
	fmt.Fprintf(p.W, "\r\x1b[K%d/%d done, %d running, %d left · PASS %d FAIL %d NOT_TESTED %d · ETA %s",
		p.done, p.total, p.running, left, p.pass, p.fail, p.notTested, eta)
	p.statusShown = true
}
