// Command hostilestate is a test plugin whose state hook misbehaves as its
// configuration says (--plugin-config hostilestate='"loop"'): "loop",
// "bomb", "panic", "error", "unknown-id", "huge", or "ok" (effect 1 for
// every operation).
package main

import (
	"encoding/json"
	"fmt"

	"github.com/cuonztech/agent-harness/sdk"
)

var (
	do   string
	sink [][]byte
)

func init() {
	sdk.Register(sdk.Plugin{
		Name:    "hostilestate",
		Version: "0.0.1",
		Init: func(cfg json.RawMessage) error {
			do = ""
			_ = json.Unmarshal(cfg, &do)
			return nil
		},
		State: func(in sdk.StateInput) (sdk.Effects, error) {
			out := sdk.Effects{}
			for _, op := range in.Operations {
				out[op.ID] = 1
			}
			switch do {
			case "loop":
				for {
				}
			case "bomb":
				for {
					sink = append(sink, make([]byte, 1<<20))
				}
			case "panic":
				panic("hostile panic")
			case "error":
				return nil, fmt.Errorf("hostile error")
			case "unknown-id":
				out["op-99"] = 1
			case "huge":
				// beyond ±2^53: the SDK refuses it, an error answer
				out[in.Operations[0].ID] = 1<<53 + 1
			}
			return out, nil
		},
	})
}

func main() {}
