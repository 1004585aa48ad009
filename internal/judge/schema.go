package judge

import _ "embed"

// ReportSchema is the JSON Schema (draft 2020-12) of the report file and of
// cuonztech__get_report's JSON format: the public contract of behaviour §5. The
// same file is committed as internal/judge/report.schema.json.
//
//go:embed report.schema.json
var ReportSchema []byte
