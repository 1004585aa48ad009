package report

import _ "embed"

// Schema is the JSON Schema (draft 2020-12) of the report file and of
// cuonztech__get_report's JSON format: the public contract of behaviour §5. The
// same file is committed as internal/report/report.schema.json.
//
//go:embed report.schema.json
var Schema []byte
