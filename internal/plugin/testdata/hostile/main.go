// Command hostile is a test plugin that misbehaves on request: the tool
// name (classify) or the "do" argument (equiv_key) picks the misdeed.
package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"time"

	"github.com/cuonztech/agent-harness/sdk"
)

var sink [][]byte

func misbehave(what string) (string, error) {
	switch what {
	case "loop":
		for {
		}
	case "panic":
		panic("hostile panic")
	case "error":
		return "", fmt.Errorf("hostile error")
	case "bomb":
		for {
			sink = append(sink, make([]byte, 1<<20))
		}
	case "print":
		for i := 0; i < 1000; i++ {
			fmt.Println(strings.Repeat("x", 100))
		}
		fmt.Fprintln(os.Stderr, "to stderr")
	case "sleep":
		start := time.Now()
		time.Sleep(time.Hour)
		return fmt.Sprintf("slept %v", time.Since(start).Round(time.Minute)), nil
	case "clock":
		return time.Now().UTC().Format(time.RFC3339), nil
	case "random":
		return fmt.Sprint(rand.Int63()), nil
	case "exit":
		os.Exit(3)
	case "log":
		sdk.Log(sdk.LevelWarn, "hello from the guest")
	}
	return "ok", nil
}

func init() {
	sdk.Register(sdk.Plugin{
		Name:    "hostile",
		Version: "0.0.1",
		Init: func(cfg json.RawMessage) error {
			if string(cfg) == `"fail"` {
				return fmt.Errorf("config says fail")
			}
			return nil
		},
		Classify: func(t sdk.Tool) (sdk.Classification, bool, error) {
			r, err := misbehave(t.Name)
			return sdk.Classification{Class: sdk.Read, Reason: r}, true, err
		},
		EquivKey: func(c sdk.Call) (string, bool, error) {
			var a struct {
				Do string `json:"do"`
			}
			json.Unmarshal(c.Arguments, &a)
			r, err := misbehave(a.Do)
			return r, true, err
		},
	})
}

func main() {}
