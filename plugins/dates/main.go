// Command dates is an agent-harness equivalence plugin: two write calls
// are the same operation when their arguments are equal after every string
// holding a calendar date in a common notation is rewritten as YYYY-MM-DD.
// See README.md.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o dates.wasm .
package main

import "github.com/cuonztech/agent-harness/sdk"

// Version is the plugin version in the manifest.
const Version = "0.1.0"

func init() {
	sdk.Register(sdk.Plugin{
		Name:     "dates",
		Version:  Version,
		EquivKey: Key,
	})
}

// main is not run in a reactor module; it exists so the package also
// builds natively for tests.
func main() {}
