package classify

import (
	"bytes"
	"encoding/json"
	"slices"
)

// KeyFieldsOf returns the names of the top-level properties of a tool's input
// schema (its `properties` object) for which match returns true, in the
// order the schema lists them, each once. Pass canon.KeyFields.Match as
// match. A schema that is absent, not valid JSON, not an object, or without a
// `properties` object has no key fields (nil). Nested properties never count
// (behaviour §4.1: key fields are top-level arguments).
func KeyFieldsOf(inputSchema json.RawMessage, match func(string) bool) []string {
	if len(inputSchema) == 0 || match == nil {
		return nil
	}
	// A map keeps the lookup of "properties" exact (a struct field would
	// also match "Properties").
	var schema map[string]json.RawMessage
	if json.Unmarshal(inputSchema, &schema) != nil {
		return nil
	}
	props, ok := schema["properties"]
	if !ok {
		return nil
	}
	var found []string
	for _, name := range objectKeys(props) {
		if match(name) && !slices.Contains(found, name) {
			found = append(found, name)
		}
	}
	return found
}

// objectKeys returns the keys of a JSON object in document order; nil when
// raw is not an object.
func objectKeys(raw json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		key, ok := tok.(string)
		if !ok {
			return nil
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return nil
		}
		keys = append(keys, key)
	}
	return keys
}
