package report

import (
	"encoding/json"
	"strconv"
)

// The report file's bytes. The judge keeps the encodings of its
// operations, keys and small sections cached between writes (a file is
// rewritten after every event); the layout — the envelope's members and
// the report object's, in the order of the model's fields — is written
// here, so the file and json.Marshal of the model cannot drift (tested in
// internal/judge).

// FileHead is what the envelope takes from the judge.
type FileHead struct {
	// Verdict and Reason are the judge's; a FileMeta.StartupError
	// replaces them with NOT_TESTED.
	Verdict, Reason string
	Kind            string // "proxy" or "demo"
	// Scenario is the configured scenario, "" for none (null).
	Scenario string
	// Sessions are written when not nil.
	Sessions []SessionInfo
	// State is the state probe's object, written when not nil.
	State *StateInfo
}

// FileBody writes the sections of a report file whose encodings its
// implementation (the judge) keeps.
type FileBody interface {
	// AppendReport appends the report object for the verdict and reason
	// (AppendReportObject).
	AppendReport(dst []byte, verdict, reason string) []byte
	// AppendScore appends the score object of the verdict.
	AppendScore(dst []byte, verdict string) []byte
	// AppendPatches appends the patches array.
	AppendPatches(dst []byte) []byte
}

// AppendFile appends the whole report-file JSON object (the envelope of
// behaviour §5 with report, score and patches) to dst and returns the
// extended buffer. Zero values of meta: Status "running", Mode
// "deterministic" ("chaos" when the scenario is "chaos"), no chaos object,
// no startup error, toolClassification [], no plugins field, transport
// stdio on both sides.
func AppendFile(dst []byte, meta FileMeta, head FileHead, body FileBody) []byte {
	verdict, reason := head.Verdict, head.Reason
	if meta.StartupError != "" {
		verdict, reason = VerdictNotTested, "The proxy could not start, so nothing was tested: "+meta.StartupError
	}
	status := meta.Status
	if status == "" {
		status = StatusRunning
	}
	mode := meta.Mode
	if mode == "" {
		mode = "deterministic"
		if head.Scenario == "chaos" {
			mode = "chaos"
		}
	}

	dst = append(dst, `{"status":`...)
	dst = AppendJSON(dst, status)
	dst = append(dst, `,"verdict":`...)
	dst = AppendJSON(dst, verdict)
	dst = append(dst, `,"certification":"`+Certification+`","harnessVersion":"`+HarnessVersion+`","kind":`...)
	dst = AppendJSON(dst, head.Kind)
	dst = append(dst, `,"scenario":`...)
	if head.Scenario == "" {
		dst = append(dst, "null"...)
	} else {
		dst = AppendJSON(dst, head.Scenario)
	}
	dst = append(dst, `,"mode":`...)
	dst = AppendJSON(dst, mode)
	if mode == "chaos" && meta.Chaos != nil {
		dst = append(dst, `,"chaos":`...)
		dst = AppendJSON(dst, meta.Chaos)
	}
	tr := meta.Transport
	if tr.Agent == "" {
		tr.Agent = "stdio"
	}
	if tr.Upstream == "" {
		tr.Upstream = "stdio"
	}
	dst = append(dst, `,"transport":`...)
	dst = AppendJSON(dst, tr)
	if head.Sessions != nil {
		dst = append(dst, `,"sessions":`...)
		dst = AppendJSON(dst, head.Sessions)
	}
	if meta.StartupError != "" {
		dst = append(dst, `,"startupError":`...)
		dst = AppendJSON(dst, meta.StartupError)
	}
	dst = append(dst, `,"report":`...)
	dst = body.AppendReport(dst, verdict, reason)
	dst = append(dst, `,"score":`...)
	dst = body.AppendScore(dst, verdict)
	dst = append(dst, `,"patches":`...)
	dst = body.AppendPatches(dst)
	dst = append(dst, `,"toolClassification":`...)
	dst = appendRaw(dst, meta.ToolClassification, "[]")
	if meta.Plugins != nil {
		dst = append(dst, `,"plugins":`...)
		dst = appendRaw(dst, meta.Plugins, "[]")
	}
	if head.State != nil {
		dst = append(dst, `,"state":`...)
		dst = AppendJSON(dst, head.State)
	}
	return append(dst, '}')
}

// ReportBody writes the lists and the coverage of a report object whose
// encodings its implementation (the judge) keeps. Each list method appends
// the entries only, comma-separated, without brackets.
type ReportBody interface {
	AppendOperations(dst []byte) []byte
	AppendViolations(dst []byte) []byte
	AppendObservations(dst []byte) []byte
	AppendCoverage(dst []byte) []byte
	AppendKeySummary(dst []byte) []byte
}

// AppendReportObject appends the report object in the field order of
// Report: byte-identical to json.Marshal of the same Report.
func AppendReportObject(dst []byte, verdict, reason, kind string, body ReportBody, plugins []PluginFailure) []byte {
	dst = append(dst, `{"verdict":`...)
	dst = AppendJSON(dst, verdict)
	dst = append(dst, `,"verdictReason":`...)
	dst = AppendJSON(dst, reason)
	dst = append(dst, `,"certification":"`+Certification+`","kind":`...)
	dst = AppendJSON(dst, kind)
	dst = append(dst, `,"operations":[`...)
	dst = body.AppendOperations(dst)
	dst = append(dst, `],"violations":[`...)
	dst = body.AppendViolations(dst)
	dst = append(dst, `],"observations":[`...)
	dst = body.AppendObservations(dst)
	dst = append(dst, `],"coverage":`...)
	dst = body.AppendCoverage(dst)
	dst = append(dst, `,"keySummary":[`...)
	dst = body.AppendKeySummary(dst)
	dst = append(dst, `],"pluginFailures":[`...)
	for i, p := range plugins {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendJSON(dst, p)
	}
	return append(dst, `],"honesty":"`+NotMeasured+`"}`...)
}

// AppendJSON appends the encoding/json encoding of v. The values are the
// model's own types, which always encode.
func AppendJSON(dst []byte, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		// Unreachable for the model's types; keep the file valid JSON.
		return append(dst, strconv.Quote("encoding error: "+err.Error())...)
	}
	return append(dst, b...)
}

// appendRaw appends raw JSON supplied by the caller, or def when it is nil
// or not valid JSON (the file must stay parseable).
func appendRaw(dst []byte, raw json.RawMessage, def string) []byte {
	if len(raw) == 0 || !json.Valid(raw) {
		return append(dst, def...)
	}
	return append(dst, raw...)
}
