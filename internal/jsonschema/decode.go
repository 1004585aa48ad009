package jsonschema

import (
	"encoding/json"
	"fmt"
)

// Invalid is Decode's error for a document that does not satisfy the
// schema: every problem, in Validate's order and wording.
type Invalid struct {
	Problems []string
}

// Error returns the first problem.
func (e *Invalid) Error() string { return e.Problems[0] }

// First returns the first problem, followed by more (a format with one %d)
// filled in with the count of the others when there are others: what the
// readers of the report and campaign files say in one line.
func (e *Invalid) First(more string) string {
	if len(e.Problems) == 1 {
		return e.Problems[0]
	}
	return e.Problems[0] + fmt.Sprintf(more, len(e.Problems)-1)
}

// Decode is "validate then parse", the one way a file the harness wrote is
// read back: data is checked against schema and then unmarshalled into
// dst. A document that fails the schema is an *Invalid; a schema that does
// not parse or an unmarshal failure is that error as it is.
func Decode(schema, data []byte, dst any) error {
	v, err := New(schema)
	if err != nil {
		return err
	}
	if errs := v.Validate(data); len(errs) > 0 {
		return &Invalid{Problems: errs}
	}
	return json.Unmarshal(data, dst)
}
