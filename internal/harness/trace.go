package harness

import (
	"time"

	"github.com/cuonztech/agent-harness/internal/trace"
)

// OpenTrace creates the trace file with its header (nil without one). A
// bad target is a UsageError (exit 2), like a bad report file; both are
// checked before the upstream starts.
func OpenTrace(c Config, st trace.Settings, start time.Time) (*trace.Writer, error) {
	if c.TraceFile == "" {
		return nil, nil
	}
	// The header records the real transports, so a re-judged HTTP run's
	// report says http as the live one does.
	w, err := trace.Create(c.TraceFile, trace.Header{Settings: st, Transport: c.Transport()}, start)
	if err != nil {
		return nil, usagef("flag --trace: %s", err)
	}
	return w, nil
}
