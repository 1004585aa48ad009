package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cuonztech/agent-harness/internal/escape"
	"github.com/cuonztech/agent-harness/internal/jsonschema"
)

// Kind is what a file is.
type Kind string

const (
	// KindRun is a run's report file (proxy or judge --report-file).
	KindRun Kind = "run"
	// KindUnknown is anything else.
	KindUnknown Kind = ""
)

// Detect tells what kind of file data is: a JSON object with the report
// file's "report", "score" and "harnessVersion" members is a run report.
func Detect(data []byte) Kind {
	var probe map[string]json.RawMessage
	if json.Unmarshal(data, &probe) != nil {
		return KindUnknown
	}
	_, r := probe["report"]
	_, s := probe["score"]
	_, v := probe["harnessVersion"]
	if r && s && v {
		return KindRun
	}
	return KindUnknown
}

// RunFile is a parsed report file (`agent-harness report` reads one).
type RunFile struct {
	Status       string  `json:"status"`
	Verdict      string  `json:"verdict"`
	Scenario     *string `json:"scenario"`
	Mode         string  `json:"mode"`
	StartupError string  `json:"startupError"`
	Report       Report  `json:"report"`
	Score        Score   `json:"score"`
	Patches      []Patch `json:"patches"`
	// State is the state probe's object (behaviour §16), nil without one.
	State *StateInfo `json:"state"`
	Raw   []byte     `json:"-"`
}

// ParseRun checks data against the report file's schema and parses it.
// The error names the first problem.
func ParseRun(data []byte) (*RunFile, error) {
	var f RunFile
	var invalid *jsonschema.Invalid
	switch err := jsonschema.Decode(Schema, data, &f); {
	case errors.As(err, &invalid):
		return nil, fmt.Errorf("not a valid report file: %s", invalid.First(" (and %d more problems)"))
	case err != nil:
		return nil, fmt.Errorf("not a valid report file: %v", err)
	}
	if f.Verdict == "" {
		return nil, errors.New("not a valid report file: no verdict")
	}
	for i := range f.Report.Operations {
		// A report file written by the harness has compact arguments; one
		// re-indented by a person renders the same.
		op := &f.Report.Operations[i]
		op.Arguments = compactJSON(op.Arguments)
		for j := range op.AttemptLog {
			if a := &op.AttemptLog[j]; a.Arguments != nil {
				a.Arguments = compactJSON(a.Arguments)
			}
		}
	}
	f.Raw = data
	return &f, nil
}

// compactJSON is v without whitespace outside strings; v itself when it
// is not valid JSON.
func compactJSON(v json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return v
	}
	return b.Bytes()
}

// ScenarioName is the run's scenario, "no scenario" when none was set;
// control characters are shown escaped (a plugin names its fault).
func (f *RunFile) ScenarioName() string {
	if f.Scenario == nil || *f.Scenario == "" {
		return "no scenario"
	}
	return escape.Line(*f.Scenario)
}

// WithStatus adds the note of Unfinished under the heading of a report's
// Markdown md when status is that of a run that did not finish.
func WithStatus(md, status string) string {
	if note := unfinished(status); note != "" {
		head, rest, _ := strings.Cut(md, "\n")
		md = head + "\n\n**" + note + "**\n" + rest
	}
	return md
}

// Unfinished is the note on a run whose report is not final (status
// running, starting or interrupted): its verdict covers only what was
// recorded, and a PASS is not a finished run (behaviour §7.3); "" for a
// finished run or one that failed to start.
func (f *RunFile) Unfinished() string { return unfinished(f.Status) }

func unfinished(status string) string {
	switch status {
	case "finished", "failed":
		return ""
	}
	return "Status " + status + ": the run did not finish, so this verdict covers only what was recorded; a PASS is not a finished run."
}
