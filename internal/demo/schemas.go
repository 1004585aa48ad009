package demo

import (
	"encoding/json"

	"github.com/cuonztech/agent-harness/internal/fault"
)

// The tool input schemas are written by hand so they stay plain: no
// "$schema", "pattern", "format" or "propertyNames" (some MCP clients reject
// them), and exactly the bytes tested in schemas_test.go.
var (
	schemaStartSession = json.RawMessage(`{"type":"object","properties":{` +
		`"scenario":{"type":"string","enum":` + scenarioEnum() + `,"description":"fault scenario to apply (see list_scenarios); none or absent: no fault, a baseline only"},` +
		`"retry_after_seconds":{"type":"integer","minimum":1,"maximum":86400,"description":"F2 only: retry_after announced by the 429 (default 60)"}},` +
		`"additionalProperties":false}`)
	schemaExecuteCall = json.RawMessage(`{"type":"object","properties":{` +
		`"session_id":{"type":"string","description":"id returned by start_session"},` +
		`"tool":{"type":"string","description":"name of the simulated tool, e.g. create_booking or search_bookings"},` +
		`"class":{"type":"string","enum":["read","write","unclassified"],"description":"class of the tool; absent: classified by its name like the proxy does (create_*, book_*, … are writes; get_*, search_*, … are reads)"},` +
		`"arguments":{"type":"object","description":"the tool's arguments"},` +
		`"idempotency_key":{"type":"string","description":"idempotency key sent with the call (added to the arguments as idempotency_key)"}},` +
		`"required":["session_id","tool"],"additionalProperties":false}`)
	schemaGetReport = json.RawMessage(`{"type":"object","properties":{` +
		`"session_id":{"type":"string","description":"id returned by start_session"},` +
		`"format":{"type":"string","enum":["markdown","json"],"description":"markdown (default) or json"}},` +
		`"required":["session_id"],"additionalProperties":false}`)
	schemaSessionOnly = json.RawMessage(`{"type":"object","properties":{` +
		`"session_id":{"type":"string","description":"id returned by start_session"}},` +
		`"required":["session_id"],"additionalProperties":false}`)
	schemaEmpty = json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)
)

// scenarioEnum is start_session's "scenario" enum: the built-in --scenario
// faults and "none".
func scenarioEnum() string {
	b, _ := json.Marshal(append(fault.Scenarios(), "none"))
	return string(b)
}
