// Command faultpack is an agent-harness fault plugin with two scenarios
// the built-in F1–F5 cannot produce:
//
//   - slow_write: the first write is forwarded and executes; the host holds
//     the upstream's real answer for delay_ms (default 1500) before the
//     agent gets it — a real late response.
//   - partial_success: the first write is forwarded and executes; the
//     agent gets an isError result saying the operation failed partway.
//
// See README.md. Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o faultpack.wasm .
package main

import (
	"encoding/json"

	"github.com/cuonztech/agent-harness/sdk"
)

// Version is the plugin version in the manifest.
const Version = "0.1.0"

var cfg = DefaultConfig()

func init() {
	sdk.Register(sdk.Plugin{
		Name:    "faultpack",
		Version: Version,
		Init: func(raw json.RawMessage) error {
			c, err := ParseConfig(raw)
			if err != nil {
				return err
			}
			cfg = c
			return nil
		},
		Faults: map[string]sdk.FaultFunc{
			"slow_write":      func(c sdk.FaultCall) (sdk.Action, error) { return SlowWrite(cfg, c), nil },
			"partial_success": func(c sdk.FaultCall) (sdk.Action, error) { return PartialSuccess(cfg, c), nil },
		},
	})
}

func main() {}
