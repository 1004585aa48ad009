package plugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// decodeStrict decodes exactly one JSON value into v: trailing data is an
// error, unknown fields are ignored (later ABI minor versions may add
// fields).
func decodeStrict(out []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(out))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("output is not the expected JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("output has data after the JSON value")
	}
	return nil
}
