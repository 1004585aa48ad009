// Package classify decides whether an upstream tool is a read, a write, or
// unclassified (behaviour §2.2). Classification happens once per tool definition at
// startup; the result decides which calls a scenario may fire on and which
// calls the judge looks at.
package classify

import "encoding/json"

// Class is the class of a tool.
type Class string

const (
	// Read tools are reads: a successful call counts as "verified".
	Read Class = "read"
	// Write tools are the calls scenarios fire on and the judge judges.
	Write Class = "write"
	// Unclassified tools are forwarded but never faulted or judged.
	Unclassified Class = "unclassified"
	// Unknown is the class of a call to a tool the upstream did not list.
	Unknown Class = "unknown"
)

// Tool is the part of an upstream tool definition a classifier looks at.
// Annotations and InputSchema are the raw JSON the upstream sent (nil when
// absent), so "absent" and "false" stay distinguishable.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
}

// Result is a classification with the human reason shown in the startup
// table, e.g. "default write pattern" or "annotation readOnlyHint=false".
type Result struct {
	Class  Class  `json:"class"`
	Reason string `json:"reason"`
	// Idempotent is set by the Chain on write tools that are idempotent
	// (behaviour §4.8); stages leave it false, the Chain decides it.
	Idempotent bool `json:"idempotent,omitempty"`
}

// Classifier is one stage of the classification chain (flags, plugins,
// annotations, name patterns). ok is false when the stage has no opinion and
// the next stage decides.
type Classifier interface {
	Classify(t Tool) (r Result, ok bool)
}
