// Package minimal is the minimal non-Go plugin: minimal.wat is its source
// and minimal.wasm the committed binary (assembled by a test of the plugin
// host, internal/plugin/minimal_test.go). See README.md.
package minimal

import _ "embed"

// Wasm is the committed minimal.wasm.
//
//go:embed minimal.wasm
var Wasm []byte

// Manifest is the manifest stored at offset 16.
const Manifest = `{"abi":1,"name":"minimal","version":"0.1.0","hooks":["classify","equiv_key","fault"],"faults":["noop"]}`
