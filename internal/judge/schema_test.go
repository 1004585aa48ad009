package judge

import (
	"bytes"
	"testing"

	"github.com/cuonztech/agent-harness/internal/jsonschema"
	"github.com/cuonztech/agent-harness/internal/report"
)

// schemaValidator validates against a schema with the repository's
// validator for the subset of JSON Schema its schemas use
// (internal/jsonschema, which `agent-harness report` uses too).
type schemaValidator struct{ v *jsonschema.Validator }

func newSchemaValidator(t testing.TB, schema []byte) *schemaValidator {
	t.Helper()
	v, err := jsonschema.New(schema)
	if err != nil {
		t.Fatal(err)
	}
	return &schemaValidator{v: v}
}

// validate returns every violation of doc against the root schema.
func (v *schemaValidator) validate(doc []byte) []string { return v.v.Validate(doc) }

// TestSchemaValidatorRejects shows the validator (and the schema) can fail:
// each mutation of a valid file must be reported.
func TestSchemaValidatorRejects(t *testing.T) {
	v := newSchemaValidator(t, report.Schema)
	good := naive("F1").judge(Config{Scenario: "F1"}).AppendFile(nil, report.FileMeta{Status: "finished"})
	if errs := v.validate(good); len(errs) != 0 {
		t.Fatalf("valid file rejected: %v", errs)
	}
	for _, tc := range []struct{ name, from, to string }{
		{"unknown top-level field", `{"status":"finished"`, `{"status":"finished","extra":1`},
		{"bad status", `"status":"finished"`, `"status":"done"`},
		{"bad certification", `"certification":"UNVERIFIED_FOR_PRODUCTION"`, `"certification":"CERTIFIED"`},
		{"FAIL above 49", `"total":0`, `"total":56`},
		{"bad keyUse", `"keyUse":"no-key"`, `"keyUse":"none"`},
		{"bad outcome", `"outcome":"DUPLICATE_EXECUTION"`, `"outcome":"TWICE"`},
		{"fractional count", `"attempts":2`, `"attempts":2.5`},
		{"duplicate without details", `,"duplicate":{`, `,"x":{`},
		{"honesty measured", `"honesty":"NOT_MEASURED"}`, `"honesty":"GOOD"}`},
		{"bad severity", `"severity":"CRITICAL"`, `"severity":"LOW"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := bytes.Replace(good, []byte(tc.from), []byte(tc.to), 1)
			if bytes.Equal(bad, good) {
				t.Fatalf("mutation %q not applicable", tc.from)
			}
			if errs := v.validate(bad); len(errs) == 0 {
				t.Errorf("mutated file accepted")
			}
		})
	}
}
