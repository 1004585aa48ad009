// Command verbs is an agent-harness classifier plugin driven by a verb
// table: a tool whose name starts with a listed verb (check_in, checkIn,
// check-in …) gets that verb's class, and listed tool names get theirs.
// The default table fixes the misfires of the built-in name patterns
// documented in behaviour §2.2: check_in_guest is a write, update_status_view a
// read. See README.md.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o verbs.wasm .
package main

import (
	"encoding/json"

	"github.com/cuonztech/agent-harness/sdk"
)

// Version is the plugin version in the manifest.
const Version = "0.1.0"

var table = DefaultTable()

func init() {
	sdk.Register(sdk.Plugin{
		Name:    "verbs",
		Version: Version,
		Init: func(config json.RawMessage) error {
			t, err := ParseConfig(config)
			if err != nil {
				return err
			}
			table = t
			return nil
		},
		Classify: func(tool sdk.Tool) (sdk.Classification, bool, error) {
			c, ok := table.Classify(tool.Name)
			return c, ok, nil
		},
	})
}

func main() {}
