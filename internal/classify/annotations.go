package classify

import "encoding/json"

// Annotations is the stage that reads the MCP tool annotations the upstream
// sent. Only JSON booleans count; an absent hint (or one of another type) is
// not the same as false and gives no opinion (behaviour §2.2):
//
//   - readOnlyHint: true → read ("annotation readOnlyHint=true")
//   - readOnlyHint: false → write ("annotation readOnlyHint=false")
//   - destructiveHint: true → write ("annotation destructiveHint=true")
//   - destructiveHint: false alone → no opinion: a non-destructive tool may
//     still create things (an additive write), so it says nothing about
//     reading.
//
// readOnlyHint: true together with destructiveHint: true contradict each
// other; the stage answers write, the direction that cannot hide a double
// execution. idempotentHint and openWorldHint give no class: an idempotent
// tool is still a write (the Chain reads idempotentHint for behaviour §4.8).
type Annotations struct{}

// hints are the annotation fields the stage looks at; nil means absent or not
// a boolean.
type hints struct {
	ReadOnly    *bool
	Destructive *bool
	Idempotent  *bool
}

func parseHints(raw json.RawMessage) hints {
	if len(raw) == 0 {
		return hints{}
	}
	// A map keeps the lookup exact: encoding/json would match struct fields
	// case-insensitively ("READONLYHINT").
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return hints{}
	}
	return hints{ReadOnly: boolField(m, "readOnlyHint"), Destructive: boolField(m, "destructiveHint"),
		Idempotent: boolField(m, "idempotentHint")}
}

func boolField(m map[string]json.RawMessage, name string) *bool {
	var b bool
	v, ok := m[name]
	if !ok || json.Unmarshal(v, &b) != nil || string(v) == "null" {
		return nil
	}
	return &b
}

// Classify implements Classifier.
func (Annotations) Classify(t Tool) (Result, bool) {
	h := parseHints(t.Annotations)
	ro := h.ReadOnly != nil && *h.ReadOnly
	destructive := h.Destructive != nil && *h.Destructive
	switch {
	case ro && destructive:
		return Result{Class: Write, Reason: "annotations readOnlyHint=true and destructiveHint=true conflict, taken as write"}, true
	case ro:
		return Result{Class: Read, Reason: "annotation readOnlyHint=true"}, true
	case h.ReadOnly != nil: // false
		return Result{Class: Write, Reason: "annotation readOnlyHint=false"}, true
	case destructive:
		return Result{Class: Write, Reason: "annotation destructiveHint=true"}, true
	}
	return Result{}, false
}
