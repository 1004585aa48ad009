package campaign

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cuonztech/agent-harness/internal/jsonschema"
)

// Schema is campaign.schema.json, the published shape of campaign.json.
//
//go:embed campaign.schema.json
var Schema []byte

// IsSummary reports whether data looks like a campaign.json (a JSON object
// with schemaVersion, plan, variants and gate), so `agent-harness report`
// can tell it from a run's report file.
func IsSummary(data []byte) bool {
	var probe map[string]json.RawMessage
	if json.Unmarshal(data, &probe) != nil {
		return false
	}
	for _, k := range []string{"schemaVersion", "plan", "variants", "gate"} {
		if _, ok := probe[k]; !ok {
			return false
		}
	}
	return true
}

// ParseSummary checks data against Schema and parses it. The error names
// the first problem.
func ParseSummary(data []byte) (*Summary, error) {
	var s Summary
	var invalid *jsonschema.Invalid
	switch err := jsonschema.Decode(Schema, data, &s); {
	case errors.As(err, &invalid):
		return nil, errors.New("not a valid campaign file: " + invalid.First(" (and %d more)"))
	case err != nil:
		return nil, fmt.Errorf("reading the campaign file: %w", err)
	}
	return &s, nil
}
