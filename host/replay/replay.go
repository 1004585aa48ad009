// Package replay judges a recorded agent-harness trace (the file written by
// `agent-harness proxy --trace FILE`) from Go code, with the engine of
// `agent-harness judge`: a Go test can run its agent through the proxy once
// and then assert the verdict, or try other judging settings on the same
// record.
//
// It is the one Go API of the host besides the plugin SDK; everything else
// is internal. The trace format is documented in docs/trace.md, the report
// it returns in docs/report.md (JSON Schema: internal/report/report.schema.json).
package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/cuonztech/agent-harness/internal/harness"
	"github.com/cuonztech/agent-harness/internal/trace"
)

// Options replace settings recorded in the trace's header. A nil slice
// keeps the recorded value.
type Options struct {
	// KeyFields are argument names holding idempotency keys (--key-fields).
	KeyFields []string
	// WriteTools, ReadTools and IdempotentTools are classification globs
	// (--write-tools, --read-tools, --idempotent-tools); the tools are then
	// classified again from their recorded definitions.
	WriteTools, ReadTools, IdempotentTools []string
}

// Result is the outcome of judging a trace.
type Result struct {
	// Verdict is "PASS", "FAIL" or "NOT_TESTED"; Reason names the deciding
	// fact.
	Verdict, Reason string
	// Score is the resilience score 0–100, nil for NOT_TESTED.
	Score *int
	// Report is the report file, as `agent-harness judge --report-file`
	// writes it.
	Report json.RawMessage
	// Warning is set when the trace's last line was torn (the proxy was
	// killed while writing it) and was left out.
	Warning string
	// Status is the report's status: "finished", "failed" (the proxy did
	// not start) or "interrupted" (the trace has no end line: the proxy
	// was stopped, and a PASS covers only what was recorded — not a
	// finished run; `agent-harness judge` exits 3 for it).
	Status string
}

// ErrPlugins is returned for a trace recorded with WASM plugins: re-judging
// it needs the plugins, which `agent-harness judge` loads.
var ErrPlugins = errors.New("the trace was recorded with plugins: judge it with `agent-harness judge`")

// Judge reads a trace from r and judges it.
//
// # Errors
//
// A trace that cannot be read (no version header, a damaged line that is
// not the last one, a line against trace.schema.json or the writer's
// invariants, e.g. a call number used twice), or one recorded with plugins
// (ErrPlugins).
func Judge(r io.Reader, o Options) (*Result, error) {
	tr, err := trace.Read(r)
	if err != nil {
		return nil, fmt.Errorf("reading the trace: %w", err)
	}
	s := tr.Header.Settings
	if len(s.Plugins) > 0 {
		return nil, ErrPlugins
	}
	if s.Kind == "" {
		s.Kind = "proxy"
	}
	var to trace.Options
	for _, r := range []struct{ dst, v *[]string }{
		{&s.KeyFields, &o.KeyFields}, {&s.WriteTools, &o.WriteTools},
		{&s.ReadTools, &o.ReadTools}, {&s.IdempotentTools, &o.IdempotentTools},
	} {
		if *r.v != nil {
			*r.dst, to.Reclassify = *r.v, true
		}
	}
	to.Settings = s
	j, meta := harness.Rejudge(tr, to, nil)
	verdict, reason := j.Verdict()
	return &Result{Verdict: verdict, Reason: reason, Score: j.Score().Total, Report: j.AppendFile(nil, meta), Warning: tr.Warning,
		Status: meta.Status}, nil
}
