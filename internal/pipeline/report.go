package pipeline

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/relay"
	"github.com/cuonztech/agent-harness/internal/report"
)

// Start writes the first report file (status "starting", verdict
// NOT_TESTED), before the upstream is launched.
func (p *Pipeline) Start() error {
	return p.persistFinal(p.bump(nil))
}

// StartupFailed writes the report file of a start that failed (status
// "failed" with startupError).
func (p *Pipeline) StartupFailed(cause error) error {
	return p.persistFinal(p.bump(func() {
		p.status, p.startErr = report.StatusFailed, cause.Error()
	}))
}

// SetToolClassification records the upstream's classified tool list (the
// report's toolClassification) and writes the report file.
func (p *Pipeline) SetToolClassification(list json.RawMessage) error {
	return p.persist(p.bump(func() {
		p.tools = list
		if p.status == report.StatusStarting {
			p.status = report.StatusRunning
		}
	}))
}

// bump runs change under the state lock and counts it as a new state.
func (p *Pipeline) bump(change func()) uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if change != nil {
		change()
	}
	p.gen++
	return p.gen
}

// meta returns the report file's envelope fields for status.
func (p *Pipeline) meta() report.FileMeta {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := report.FileMeta{
		Status:             p.status,
		StartupError:       p.startErr,
		Mode:               p.opts.Mode,
		Chaos:              p.opts.Chaos,
		ToolClassification: p.tools,
		Transport:          p.opts.Transport,
	}
	if p.opts.Plugins != nil {
		m.Plugins = p.opts.Plugins()
	}
	return m
}

// persist writes the report file unless a write already covered state
// generation gen, or Options.ReportInterval defers it (interval.go). On
// the first failure it prints one line on stderr; from then on it returns
// that error without writing. A trace that could not be written is
// returned the same way.
func (p *Pipeline) persist(gen uint64) error {
	if err := p.traceErr(); err != nil {
		return err
	}
	if p.opts.Report == nil || p.deferWrite(gen) {
		return nil
	}
	return p.writeNow(gen)
}

// persistFinal is persist without the interval: the writes at start, on
// a failed start and at the session end.
func (p *Pipeline) persistFinal(gen uint64) error {
	if err := p.traceErr(); err != nil {
		return err
	}
	if p.opts.Report == nil {
		return nil
	}
	return p.writeNow(gen)
}

// Served records that the agent sent a request other than server/discover
// and ping (relay.Options.OnServed): the process serves a real session,
// not only a version probe (behaviour §5.2).
func (p *Pipeline) Served() { p.served.Store(true) }

// replacer is the report writer's Replaced (*reportfile.Writer).
type replacer interface{ Replaced() bool }

// probeLeavesFile reports whether this write is left out: the agent has
// sent nothing but a version probe so far, and another process replaced
// the report file since this one's last write — the session the probe was
// made for, whose report a probe's must never replace (behaviour §5.2).
// The first time it says so on stderr. Called under wmu.
func (p *Pipeline) probeLeavesFile() bool {
	r, ok := p.opts.Report.(replacer)
	if !ok || p.served.Load() || !r.Replaced() {
		return false
	}
	if !p.probeLeft {
		p.probeLeft = true
		msg := strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(fmt.Sprintf("this proxy served only a version probe (server/discover) and another process has written report file %s since: the file is left to it", p.opts.Report.Path()))
		fmt.Fprintf(p.opts.Stderr, "[agent-harness] %s\n", msg)
	}
	return true
}

// writeNow writes the report file unless a write already covered gen.
func (p *Pipeline) writeNow(gen uint64) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if p.failed != nil {
		return p.failed
	}
	if p.written >= gen {
		return nil
	}
	if p.probeLeavesFile() {
		return nil
	}
	p.mu.Lock()
	cur := p.gen
	p.mu.Unlock()
	// The encoding includes every event up to cur (and maybe later ones).
	if err := p.writeReport(p.meta()); err != nil {
		p.failed = err
		p.broken.Store(&err)
		// One line, also when the path holds a line break.
		msg := strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(fmt.Sprintf("cannot write report file %s: %v", p.opts.Report.Path(), err))
		fmt.Fprintf(p.opts.Stderr, "[agent-harness] %s\n", msg)
		return err
	}
	p.written = cur
	p.wroteAt = time.Now()
	return nil
}

// writeReport encodes the report file into the reused buffer and writes
// it once.
func (p *Pipeline) writeReport(meta report.FileMeta) error {
	p.buf = p.judge.AppendFile(p.buf[:0], meta)
	return p.opts.Report.Write(p.buf)
}

// brokenErr returns the error that stopped the report file, nil while it
// works. It does not wait for a report write in progress: a call must not
// be delayed (and timed late) by another call's write.
func (p *Pipeline) brokenErr() error {
	if e := p.broken.Load(); e != nil {
		return *e
	}
	return p.traceErr()
}

// ReportJSON returns the report file's contents as they would be written
// now (also without --report-file): the data of cuonztech__get_report
// format json.
func (p *Pipeline) ReportJSON() []byte {
	return p.judge.AppendFile(nil, p.meta())
}

// OnTools records the relay's classified tool list (relay.Options.OnTools).
// A report file that cannot be written ends the process through Fatal,
// before the agent gets the initialize answer.
func (p *Pipeline) OnTools(tools []relay.ToolInfo) {
	list, err := json.Marshal(tools)
	if err != nil {
		return // a []ToolInfo always encodes
	}
	var writes []string
	for _, t := range tools {
		if t.Class == classify.Write {
			writes = append(writes, t.Name)
		}
	}
	p.apply(judge.Event{Kind: judge.EventTools, Time: p.clock.Now(), Tools: writes, Listing: tools})
	if err := p.SetToolClassification(list); err != nil {
		p.fatal(err)
	}
}
