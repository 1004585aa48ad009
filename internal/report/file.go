package report

import "encoding/json"

// Report-file statuses (behaviour §5, §7.3): status of the file's envelope.
const (
	StatusStarting = "starting"
	StatusRunning  = "running"
	StatusFinished = "finished"
	StatusFailed   = "failed"
	// StatusInterrupted is the status of a report rebuilt from a trace
	// without its end line: the proxy was stopped before the session
	// ended, so the verdict covers only what happened until then
	// (behaviour §7.2).
	StatusInterrupted = "interrupted"
)

// FileMeta is what the report-file envelope needs beyond the judge's own
// state (behaviour §5). Zero values: Status "running", Mode
// "deterministic" ("chaos" when the judge's scenario is "chaos"), no chaos
// object, no startup error, toolClassification [], no plugins field,
// transport stdio on both sides.
type FileMeta struct {
	// Status is a Status constant: StatusStarting, StatusRunning,
	// StatusFinished, StatusFailed or StatusInterrupted.
	Status string
	// StartupError is set on a failed start; the verdict is then NOT_TESTED.
	StartupError string
	// Mode is "deterministic" or "chaos".
	Mode string
	// Chaos is written in chaos mode only.
	Chaos *ChaosInfo
	// ToolClassification is the raw JSON array
	// [{"name","class","reason","keyFields":[...]}]; nil writes [].
	ToolClassification json.RawMessage
	// Plugins is the raw JSON array of loaded plugins; nil omits the field.
	Plugins json.RawMessage
	// Transport is the file's transport object; an empty field is "stdio".
	Transport Transport
}
