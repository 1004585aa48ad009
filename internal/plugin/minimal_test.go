package plugin_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	. "github.com/cuonztech/agent-harness/internal/plugin/plugintest/wasmbin"
	"github.com/cuonztech/agent-harness/plugins/minimal"
)

var updateMinimal = flag.Bool("update", false, "rewrite plugins/minimal/minimal.wasm from assembleMinimal")

// TestMinimalWasmUpToDate: the committed plugins/minimal/minimal.wasm is
// minimal.wat as assembleMinimal encodes it (the assembler lives here so
// the example plugin imports nothing of the host).
func TestMinimalWasmUpToDate(t *testing.T) {
	got := assembleMinimal()
	if *updateMinimal {
		if err := os.WriteFile(filepath.Join("..", "..", "plugins", "minimal", "minimal.wasm"), got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(got, minimal.Wasm) {
		t.Error("plugins/minimal/minimal.wasm is stale; run go test ./internal/plugin -run TestMinimalWasmUpToDate -update")
	}
}

// assembleMinimal assembles plugins/minimal/minimal.wat, instruction for
// instruction.
func assembleMinimal() []byte {
	var m Module
	m.Memory(1, -1, true)
	heap := m.Global(1024)
	m.Data(16, []byte(minimal.Manifest))
	i32, i64, ptrLen := []ValType{I32}, []ValType{I64}, []ValType{I32, I32}

	m.ExportFunc("ah_abi_v1", m.Func(nil, nil, nil))
	const size, p, end = 0, 1, 2
	m.ExportFunc("ah_alloc", m.Func(i32, i32, []ValType{I32, I32},
		GlobalGet(heap), LocalSet(p),
		GlobalGet(heap), LocalGet(size), I32Add, I32Const(7), I32Add, I32Const(-8), I32And, LocalSet(end),
		Block(),
		LocalGet(end), MemorySize, I32Const(16), I32Shl, I32LeU, BrIf(0),
		LocalGet(end), MemorySize, I32Const(16), I32Shl, I32Sub, I32Const(65535), I32Add, I32Const(16), I32ShrU,
		MemoryGrow, I32Const(-1), I32Eq,
		If(), I32Const(0), Return, End,
		End,
		LocalGet(end), GlobalSet(heap), LocalGet(p)))
	m.ExportFunc("ah_free", m.Func(i32, nil, nil))
	m.ExportFunc("ah_manifest", m.Func(nil, i64, nil, PackPtrLen(16, uint32(len(minimal.Manifest)))))
	for _, name := range []string{"ah_init", "ah_classify", "ah_equiv_key", "ah_fault"} {
		m.ExportFunc(name, m.Func(ptrLen, i64, nil, I64Const(0)))
	}
	return m.Bytes()
}
