package classify

import (
	"encoding/json"
	"fmt"
)

// EntryOf classifies one raw tool object as an upstream lists it: the
// listing's entry with its class (from classifyTool), key fields (the
// top-level input-schema properties keyField accepts) and the raw
// definition. A definition that is not a tool object but has a string
// name is an unclassified entry naming the problem; ok is false when there
// is no usable name. The relay classifies live listings with it and the
// offline judge (agent-harness judge) recorded ones, so both agree.
func EntryOf(raw []byte, classifyTool func(Tool) Result, keyField func(string) bool) (e Entry, ok bool) {
	def := json.RawMessage(append([]byte(nil), raw...))
	var t Tool
	if err := json.Unmarshal(raw, &t); err != nil {
		var named struct {
			Name *string `json:"name"`
		}
		if json.Unmarshal(raw, &named) != nil || named.Name == nil {
			return Entry{}, false
		}
		return Entry{Name: *named.Name, Class: Unclassified,
			Reason: fmt.Sprintf("tool definition could not be read: %v", err), KeyFields: []string{}, Definition: def}, true
	}
	if t.Name == "" {
		return Entry{}, false
	}
	r := classifyTool(t)
	if r.Class == "" {
		r.Class = Unclassified
	}
	kf := KeyFieldsOf(t.InputSchema, keyField)
	if kf == nil {
		kf = []string{}
	}
	return Entry{Name: t.Name, Class: r.Class, Reason: r.Reason, KeyFields: kf,
		Idempotent: r.Idempotent && r.Class == Write, Definition: def}, true
}
