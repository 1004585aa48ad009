package sampleserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Counts are what `agent-harness sample-server state FILE` prints: the
// backend's truth as a state probe reads it (behaviour §16).
type Counts struct {
	// Bookings is how many bookings create_booking made (a replayed key
	// made none).
	Bookings int `json:"bookings"`
	// Replayed is how many create_booking executions returned an earlier
	// booking for a repeated idempotency key.
	Replayed int `json:"replayed"`
	// Cancellations is how many cancel_booking executions there were.
	Cancellations int `json:"cancellations"`
	// Executions is every line of the state file.
	Executions int `json:"executions"`
}

// ReadCounts counts the state file at path. A file that does not exist yet
// is an empty backend (the probe runs before the server starts); a line
// that is not an execution, or a last line without its newline (a write
// under way), is an error.
func ReadCounts(path string) (Counts, error) {
	var c Counts
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("state file: %w", err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			if len(bytes.TrimSpace(line)) > 0 {
				return c, fmt.Errorf("state file %s: line %d has no end (a write under way?)", path, n)
			}
			return c, nil
		}
		if err != nil {
			return c, fmt.Errorf("state file %s: %w", path, err)
		}
		var e struct {
			Tool   string `json:"tool"`
			Result struct {
				Replayed bool `json:"replayed"`
			} `json:"result"`
		}
		if err := json.Unmarshal(line, &e); err != nil || e.Tool == "" {
			return c, fmt.Errorf("state file %s: line %d is not an execution", path, n)
		}
		c.add(e.Tool, e.Result.Replayed)
	}
}

// add counts one execution of tool; replayed is a create_booking's
// Replayed.
func (c *Counts) add(tool string, replayed bool) {
	c.Executions++
	switch {
	case tool == CreateTool && replayed:
		c.Replayed++
	case tool == CreateTool:
		c.Bookings++
	case tool == "cancel_booking":
		c.Cancellations++
	}
}
