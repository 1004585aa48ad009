package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/relay"
)

// bytesReport keeps every file written through Write.
type bytesReport struct{ files [][]byte }

func (r *bytesReport) Write(data []byte) error {
	r.files = append(r.files, bytes.Clone(data))
	return nil
}
func (r *bytesReport) Path() string { return "out/report.json" }

// failingReport fails every write with err.
type failingReport struct {
	bytesReport
	err error
}

func (r *failingReport) Write([]byte) error { return r.err }

// runReportSession runs a short F1 session with the real judge and returns
// the pipeline.
func runReportSession(t *testing.T, rep ReportWriter) *Pipeline {
	t.Helper()
	p := New(Options{
		Judge:  judge.New(judge.Config{KeyFields: canon.ParseKeyFields(nil), Scenario: "F1"}),
		Fault:  fault.NewGhostWrite(),
		Report: rep, Clock: newFakeClock(true),
		Fatal: func(err error) { t.Fatal(err) },
	})
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	p.OnTools([]relay.ToolInfo{{Name: "create_booking", Class: classify.Write}})
	forward := func(context.Context) (relay.Response, error) {
		return relay.Response{Result: json.RawMessage(okResult)}, nil
	}
	for i := range 40 {
		c := &relay.ToolCall{ID: int64(i + 1), Tool: "create_booking", Class: classify.Write, AcceptsKey: true,
			Arguments: json.RawMessage(`{"room":` + strconv.Itoa(i%25) + `}`)}
		if _, err := p.HandleCall(context.Background(), c, forward); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.OnSessionEnd(); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReportFileLast: the session writes the report file at every event,
// and the last file is what ReportJSON returns.
func TestReportFileLast(t *testing.T) {
	rep := &bytesReport{}
	p := runReportSession(t, rep)
	if len(rep.files) < 80 {
		t.Fatalf("%d files written, want at least two per call", len(rep.files))
	}
	if last := rep.files[len(rep.files)-1]; !bytes.Equal(last, p.ReportJSON()) {
		t.Error("last file differs from ReportJSON")
	}
}

// TestReportFileWriteFailure: a failed write is one stderr line and Fatal.
func TestReportFileWriteFailure(t *testing.T) {
	var stderr bytes.Buffer
	var fatal []error
	rep := &failingReport{err: errDiskFull}
	p := New(Options{
		Judge: judge.New(judge.Config{}), Report: rep, Stderr: &stderr,
		Fatal: func(err error) { fatal = append(fatal, err) },
	})
	if err := p.Start(); !errors.Is(err, errDiskFull) {
		t.Fatalf("Start = %v, want the write error", err)
	}
	c := &relay.ToolCall{ID: 1, Tool: "create_booking", Class: classify.Write, Arguments: json.RawMessage(`{}`)}
	if _, err := p.HandleCall(context.Background(), c, nil); err == nil {
		t.Fatal("call answered after the report file failed")
	}
	if len(fatal) != 1 || !errors.Is(fatal[0], errDiskFull) {
		t.Errorf("Fatal calls %v", fatal)
	}
	if want := "[agent-harness] cannot write report file out/report.json: " + errDiskFull.Error() + "\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if len(rep.files) != 0 || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("files %d, stderr %q", len(rep.files), stderr.String())
	}
}

// oddPathReport fails every write; its path holds line breaks.
type oddPathReport struct{}

func (oddPathReport) Write([]byte) error { return errors.New("open evil\nname.json: is a directory") }
func (oddPathReport) Path() string       { return "evil\nname\r.json" }

// TestReportFileFailureOneLine: the failure message stays one stderr line
// when the path or the error holds line breaks (behaviour §5: one line, exit 1).
func TestReportFileFailureOneLine(t *testing.T) {
	var stderr bytes.Buffer
	p := New(Options{Judge: judge.New(judge.Config{}), Report: oddPathReport{}, Stderr: &stderr, Fatal: func(error) {}})
	if err := p.Start(); err == nil {
		t.Fatal("Start succeeded with a failing report file")
	}
	want := `[agent-harness] cannot write report file evil\nname\r.json: open evil\nname.json: is a directory` + "\n"
	if stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}
