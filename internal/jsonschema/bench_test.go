package jsonschema_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/cuonztech/agent-harness/internal/jsonschema"
	"github.com/cuonztech/agent-harness/internal/report"
	"github.com/cuonztech/agent-harness/internal/trace"
)

// BenchmarkValidateReport validates a real report file (an F1 run with a
// redacted duplicate, 6.8 KB) against the report schema, as `agent-harness
// report` does before rendering it.
func BenchmarkValidateReport(b *testing.B) {
	data, err := os.ReadFile("../../testdata/reports/f1-redacted.json")
	if err != nil {
		b.Fatal(err)
	}
	v, err := jsonschema.New(report.Schema)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if errs := v.Validate(data); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

// BenchmarkValidateTraceLines validates every line of a recorded trace
// (11 lines) against its type's definition, as the trace reader does.
func BenchmarkValidateTraceLines(b *testing.B) {
	data, err := os.ReadFile("../../cmd/agent-harness/testdata/recorded/f1-naive.trace.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	defs := map[string]string{"header": "header", "call": "call", "forwarded": "forwarded", "answer": "answer",
		"delivered": "delivered", "tools": "tools", "end": "end", "session": "sessionOpen"}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	refs := make([]string, len(lines))
	for i, l := range lines {
		var h struct{ Type string }
		if err := json.Unmarshal(l, &h); err != nil || defs[h.Type] == "" {
			b.Fatalf("line %d: type %q, %v", i+1, h.Type, err)
		}
		refs[i] = "#/$defs/" + defs[h.Type]
	}
	v, err := jsonschema.New(trace.Schema)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		for i, l := range lines {
			if errs := v.ValidateValidRef(refs[i], l); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	}
}
