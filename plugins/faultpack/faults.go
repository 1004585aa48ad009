package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/cuonztech/agent-harness/sdk"
)

// DefaultSlowDelay is slow_write's default hold time.
const DefaultSlowDelay = 1500 * time.Millisecond

// DefaultPartialText is partial_success's default error text.
const DefaultPartialText = "Error: HTTP 500 Internal Server Error: the operation failed partway; some changes may have been applied."

// Config is the plugin configuration (--plugin-config faultpack=JSON):
//
//	{"slow_write": {"delay_ms": 1500}, "partial_success": {"text": "…"}}
type Config struct {
	SlowWrite struct {
		DelayMs *int64 `json:"delay_ms"`
	} `json:"slow_write"`
	PartialSuccess struct {
		Text string `json:"text"`
	} `json:"partial_success"`

	slowDelay   time.Duration
	partialText string
}

// DefaultConfig is the configuration used without one.
func DefaultConfig() Config {
	return Config{slowDelay: DefaultSlowDelay, partialText: DefaultPartialText}
}

// ParseConfig reads the configuration; null gives DefaultConfig.
func ParseConfig(raw json.RawMessage) (Config, error) {
	c := DefaultConfig()
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return c, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Config{}, fmt.Errorf("faultpack config: %w", err)
	}
	if d := c.SlowWrite.DelayMs; d != nil {
		if *d < 0 || *d > 600_000 {
			return Config{}, fmt.Errorf("faultpack config: slow_write.delay_ms %d is not between 0 and 600000", *d)
		}
		c.slowDelay = time.Duration(*d) * time.Millisecond
	}
	if c.PartialSuccess.Text != "" {
		c.partialText = c.PartialSuccess.Text
	}
	return c, nil
}

// first reports whether c is the first write the fault applies to. The
// host keeps the count, so this is the same "first write" as F1–F5's.
func first(c sdk.FaultCall) bool { return c.Class == sdk.Write && c.Applied == 0 }

// SlowWrite forwards the first write and asks the host to hold the
// upstream's answer for the configured delay.
func SlowWrite(cfg Config, c sdk.FaultCall) sdk.Action {
	if !first(c) {
		return sdk.Action{}
	}
	return sdk.Action{Kind: sdk.Pass, DelayAfter: cfg.slowDelay}
}

// PartialSuccess forwards the first write (it executes) and answers the
// agent with an isError result.
func PartialSuccess(cfg Config, c sdk.FaultCall) sdk.Action {
	if !first(c) {
		return sdk.Action{}
	}
	return sdk.Action{Kind: sdk.ExecuteThenReplace, Result: sdk.ErrorResult(cfg.partialText), Fault: "partial_success"}
}
