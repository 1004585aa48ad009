package sdk

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// IsKeyField reports whether the top-level argument name is one of the
// key fields: equal case-insensitively (Unicode simple folding) with '-'
// and '_' treated alike — the host's rule (behaviour §4.1).
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

// DecodeJSON decodes one JSON value into nil, bool, json.Number (the
// number's exact text, never float64), string, []any or map[string]any (of
// a name that occurs twice the last member wins). It accepts what ParseJSON
// accepts: strings that are not valid Unicode (invalid UTF-8, unpaired
// surrogate escapes) are an error, not replaced by U+FFFD, since the
// replacement would make different values of the host's canonical form
// equal (and so a key built from them join calls the host keeps apart).
func DecodeJSON(raw []byte) (any, error) {
	v, err := ParseJSON(raw)
	if err != nil {
		return nil, err
	}
	return v.toAny(), nil
}

// toAny converts a Value to DecodeJSON's types.
func (v Value) toAny() any {
	switch v.Kind {
	case Bool:
		return v.Bool
	case Number:
		return json.Number(v.Text)
	case String:
		return v.Text
	case Array:
		a := make([]any, len(v.Items))
		for i, it := range v.Items {
			a[i] = it.toAny()
		}
		return a
	case Object:
		m := make(map[string]any, len(v.Members))
		for _, mb := range v.Members {
			m[mb.Name] = mb.Value.toAny()
		}
		return m
	}
	return nil
}
