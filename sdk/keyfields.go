package sdk

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// IsKeyField reports whether the top-level argument name is one of the
// key fields: equal case-insensitively (Unicode simple folding) with '-'
// and '_' treated alike — the host's rule (SPEC §2.1).
func IsKeyField(name string, keyFields []string) bool {
	name = strings.ReplaceAll(name, "-", "_")
	for _, k := range keyFields {
		if strings.EqualFold(strings.ReplaceAll(k, "-", "_"), name) {
			return true
		}
	}
	return false
}

// StripKeyFields removes the top-level key fields from an arguments
// object.
func StripKeyFields(args map[string]any, keyFields []string) {
	for name := range args {
		if IsKeyField(name, keyFields) {
			delete(args, name)
		}
	}
}

// decodeArgs decodes an arguments object with exact numbers and strips the
// key fields; null or absent is {}.
func decodeArgs(raw json.RawMessage, keyFields []string) (map[string]any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{}, nil
	}
	v, err := DecodeJSON(raw)
	if err != nil {
		return nil, err
	}
	args, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("arguments are not a JSON object")
	}
	StripKeyFields(args, keyFields)
	return args, nil
}

// DecodeJSON decodes one JSON value with numbers as json.Number (exact
// text, never float64).
func DecodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}
