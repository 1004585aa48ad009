package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/cuonztech/agent-harness/sdk"
)

// Table maps verbs (as word lists) and exact tool names to classes.
type Table struct {
	verbs map[string]sdk.Class // joined words ("check in") → class
	tools map[string]sdk.Class // exact tool name → class
}

// Config is the plugin configuration (--plugin-config verbs=JSON).
type Config struct {
	// Verbs maps a verb, written in any case style (check_in, checkIn,
	// check-in), to "read", "write" or "unclassified".
	Verbs map[string]sdk.Class `json:"verbs"`
	// Tools maps exact tool names to a class; they win over verbs.
	Tools map[string]sdk.Class `json:"tools"`
	// Defaults keeps the default table under the configured entries; false
	// starts from an empty table. Default true.
	Defaults *bool `json:"defaults"`
}

// DefaultTable holds the fixes for the documented misfires.
func DefaultTable() Table {
	return Table{
		verbs: map[string]sdk.Class{
			"check in":  sdk.Write,
			"check out": sdk.Write,
			"checkin":   sdk.Write,
			"checkout":  sdk.Write,
		},
		tools: map[string]sdk.Class{
			"update_status_view": sdk.Read,
		},
	}
}

// ParseConfig builds the table from the configuration; null keeps the
// default table.
func ParseConfig(raw json.RawMessage) (Table, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return DefaultTable(), nil
	}
	var c Config
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Table{}, fmt.Errorf("verbs config: %w", err)
	}
	t := Table{verbs: map[string]sdk.Class{}, tools: map[string]sdk.Class{}}
	if c.Defaults == nil || *c.Defaults {
		t = DefaultTable()
	}
	for verb, class := range c.Verbs {
		if err := checkClass(class); err != nil {
			return Table{}, fmt.Errorf("verbs config: verb %q: %w", verb, err)
		}
		w := words(verb)
		if len(w) == 0 {
			return Table{}, fmt.Errorf("verbs config: empty verb")
		}
		t.verbs[strings.Join(w, " ")] = class
	}
	for tool, class := range c.Tools {
		if err := checkClass(class); err != nil {
			return Table{}, fmt.Errorf("verbs config: tool %q: %w", tool, err)
		}
		t.tools[tool] = class
	}
	return t, nil
}

func checkClass(c sdk.Class) error {
	switch c {
	case sdk.Read, sdk.Write, sdk.Unclassified:
		return nil
	}
	return fmt.Errorf("class %q is not read, write or unclassified", c)
}

// Classify looks up an exact tool entry, then the longest verb matching
// the leading words of the name.
func (t Table) Classify(name string) (sdk.Classification, bool) {
	if c, ok := t.tools[name]; ok {
		return sdk.Classification{Class: c, Reason: "tool table: " + name + " → " + string(c)}, true
	}
	w := words(name)
	for n := len(w); n > 0; n-- {
		verb := strings.Join(w[:n], " ")
		if c, ok := t.verbs[verb]; ok {
			return sdk.Classification{Class: c, Reason: "verb table: " + strings.ReplaceAll(verb, " ", "_") + " → " + string(c)}, true
		}
	}
	return sdk.Classification{}, false
}

// words splits snake_case, kebab-case, dotted and camelCase names into
// lower-case words: "checkInGuest" and "check_in_guest" → [check in guest].
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ' || r == '/':
			flush()
		case unicode.IsUpper(r) && len(cur) > 0 && (unicode.IsLower(cur[len(cur)-1]) ||
			i+1 < len(rs) && unicode.IsLower(rs[i+1])):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}
