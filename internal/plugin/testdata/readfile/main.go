// Command readfile is a test plugin that tries to read a file; it imports
// path_open and the host refuses to load it.
package main

import (
	"os"

	"github.com/cuonztech/agent-harness/sdk"
)

func init() {
	sdk.Register(sdk.Plugin{
		Name: "readfile", Version: "0.0.1",
		Classify: func(t sdk.Tool) (sdk.Classification, bool, error) {
			b, err := os.ReadFile("/etc/passwd")
			return sdk.Classification{Class: sdk.Read, Reason: string(b)}, true, err
		},
	})
}

func main() {}
