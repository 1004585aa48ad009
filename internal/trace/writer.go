package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/report"
	"github.com/cuonztech/agent-harness/internal/reportfile"
)

// Writer appends a trace's lines to its file. Each line is handed to the
// operating system with one write before Record returns (so it survives a
// killed process, not a power loss: there is no fsync, as for the report
// file). Its methods are safe for concurrent use; the pipeline calls
// Record under its state lock, so the judge events are in the order the
// judge applied them.
type Writer struct {
	mu    sync.Mutex
	f     *os.File
	path  string
	start time.Time
	buf   bytes.Buffer
	enc   *json.Encoder
}

// Create replaces the file at path (a regular file or nothing yet, as for
// --report-file; missing parent directories are created) with a trace
// whose header is h, and returns its writer. Times of later lines count
// from start.
func Create(path string, h Header, start time.Time) (*Writer, error) {
	if err := reportfile.Prepare(path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	w := &Writer{f: f, path: path, start: start}
	w.enc = json.NewEncoder(&w.buf)
	w.enc.SetEscapeHTML(false)
	h.Type, h.Format, h.Version, h.HarnessVersion = TypeHeader, Format, Version, report.HarnessVersion
	h.StartedAt = start.UTC().Format(time.RFC3339Nano)
	if h.Tools == nil {
		h.Tools = []Tool{}
	}
	if h.Settings.KeyFields == nil {
		h.Settings.KeyFields = []string{} // the schema's array, as the reader checks it
	}
	if err := w.write(h); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// Path is the trace file's path as given.
func (w *Writer) Path() string { return w.path }

// Close closes the file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.f.Close()
}

// Record appends the line of one judge event.
func (w *Writer) Record(ev judge.Event) error {
	return w.write(LineOf(ev, ev.Time.Sub(w.start)))
}

// StartupFailed appends the line of a failed start (its cause is the
// report's startupError).
func (w *Writer) StartupFailed(at time.Time, cause string) error {
	return w.write(Line{Type: TypeStartupFailed, T: Millis(at.Sub(w.start)), Detail: cause})
}

// PluginFailure appends the line of a plugin's failed call, or of its
// disabling.
func (w *Writer) PluginFailure(at time.Time, plugin, detail string, disabled bool) error {
	return w.write(Line{Type: TypePluginFailure, T: Millis(at.Sub(w.start)), Plugin: plugin, Detail: detail, Disabled: disabled})
}

func (w *Writer) write(v any) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Reset()
	if err := w.enc.Encode(v); err != nil {
		return err
	}
	_, err := w.f.Write(w.buf.Bytes())
	return err
}

// LineOf is the trace line of ev at time t since the start.
func LineOf(ev judge.Event, t time.Duration) Line {
	l := Line{
		Type: string(ev.Kind), T: Millis(t), Session: Session(ev.Session), Transport: ev.Transport, OwnUpstream: ev.OwnUpstream, Call: ev.Call,
		ToolCall: ToolCall{Tool: ev.Tool, Class: ev.Class, AcceptsKey: ev.AcceptsKey, Idempotent: ev.Idempotent, RequestSeq: ev.RequestSeq},
		Outcome:  ev.Outcome, Scenario: ev.Scenario, Fault: ev.Fault, RetryAfterMs: ev.RetryAfterMs,
		ResponseDigest: ev.ResponseDigest, Detail: ev.Detail, Listing: Listing{Writes: ev.Tools},
		TransportFault: ev.TransportFault,
	}
	l.Params, l.ParamsText = raw(ev.Params)
	if ev.Kind == judge.EventCall && ev.Params == nil && ev.Arguments != nil {
		// A call without its params (tests, embedders): keep the arguments.
		l.Params, l.ParamsText = raw(append(append([]byte(`{"name":`), mustJSON(ev.Tool)...), append(append([]byte(`,"arguments":`), ev.Arguments...), '}')...))
	}
	l.Result, l.ResultText = raw(ev.Result)
	if ev.Kind == judge.EventState && ev.State != nil {
		l.At, l.Counters, l.Invalid, l.Detail = ev.State.At, ev.State.Counters, ev.State.Invalid, ev.State.Error
	}
	if ev.Kind == judge.EventTools {
		l.Tools = make([]Tool, 0, len(ev.Listing))
		for _, e := range ev.Listing {
			def := e.Definition
			if !json.Valid(def) {
				def = mustJSON(string(def))
			}
			l.Tools = append(l.Tools, Tool{Definition: def, Entry: e})
		}
		if l.Writes == nil {
			l.Writes = []string{}
		}
	}
	return l
}

// raw returns b as JSON, or as text when it is not valid JSON.
func raw(b []byte) (json.RawMessage, *string) {
	if b == nil {
		return nil, nil
	}
	if json.Valid(b) {
		return b, nil
	}
	s := string(b)
	return nil, &s
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("trace: %v", err))
	}
	return b
}
