package classify

import (
	"encoding/json"
	"errors"
)

// UnmarshalJSON reads a tool definition as the upstream sent it. Unlike
// encoding/json's default, member names match exactly (MCP's are
// case-sensitive: "Annotations" is an unknown field, not the annotations),
// and a description that is not a string is ignored rather than failing the
// whole tool. Annotations and InputSchema keep their raw JSON; absent
// members stay nil.
//
// # Errors
//
// The definition must be a JSON object whose "name", when present, is a
// string.
func (t *Tool) UnmarshalJSON(data []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return errors.New("reading tool definition: not a JSON object")
	}
	if m == nil {
		return errors.New("reading tool definition: null")
	}
	*t = Tool{}
	if raw, ok := m["name"]; ok {
		if err := json.Unmarshal(raw, &t.Name); err != nil || string(raw) == "null" {
			return errors.New("reading tool definition: name is not a string")
		}
	}
	if raw, ok := m["description"]; ok {
		var d string
		if json.Unmarshal(raw, &d) == nil {
			t.Description = d
		}
	}
	t.Annotations = m["annotations"]
	t.InputSchema = m["inputSchema"]
	return nil
}
