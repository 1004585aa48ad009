package plugin_test

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/cuonztech/agent-harness/internal/plugin/plugintest/wasmbin"
)

// spec describes a hand-assembled plugin: a bump allocator, a manifest at
// offset 16 and hook bodies that see (ptr, len) as locals 0 and 1 and
// leave an i64.
type spec struct {
	manifest string
	hooks    map[string][]byte // export name → body
	data     map[uint32]string // extra data segments (offset ≥ 1024)
	imports  [][2]string       // wasi-style (i32…) → i32 imports: {module, name}
	omit     map[string]bool   // fixed exports to leave out
	abi      string            // marker export, default ah_abi_v1
	memMin   uint32            // pages, default 2
	memMax   int64             // pages, -1 = none (default)
	extra    func(m *Module)
}

const heapStart = 8192

var (
	i32   = []ValType{I32}
	i64   = []ValType{I64}
	ptrLn = []ValType{I32, I32}
)

func (s spec) bytes() []byte {
	var m Module
	for _, im := range s.imports {
		m.ImportFunc(im[0], im[1], []ValType{I32, I32, I32, I32, I32, I64, I64, I32, I32}, i32)
	}
	min, max := s.memMin, s.memMax
	if min == 0 {
		min = 2
	}
	if max == 0 {
		max = -1
	}
	m.Memory(min, max, !s.omit["memory"])
	heap := m.Global(heapStart)
	m.Data(16, []byte(s.manifest))
	for off, d := range s.data {
		m.Data(off, []byte(d))
	}
	abi := s.abi
	if abi == "" {
		abi = "ah_abi_v1"
	}
	m.ExportFunc(abi, m.Func(nil, nil, nil))
	alloc := m.Func(i32, i32, []ValType{I32, I32},
		GlobalGet(heap), LocalSet(1),
		GlobalGet(heap), LocalGet(0), I32Add, I32Const(7), I32Add, I32Const(-8), I32And, LocalSet(2),
		Block(),
		LocalGet(2), MemorySize, I32Const(16), I32Shl, I32LeU, BrIf(0),
		LocalGet(2), MemorySize, I32Const(16), I32Shl, I32Sub, I32Const(65535), I32Add, I32Const(16), I32ShrU,
		MemoryGrow, I32Const(-1), I32Eq,
		If(), I32Const(0), Return, End,
		End,
		LocalGet(2), GlobalSet(heap), LocalGet(1))
	if !s.omit["ah_alloc"] {
		m.ExportFunc("ah_alloc", alloc)
	}
	if !s.omit["ah_free"] {
		m.ExportFunc("ah_free", m.Func(i32, nil, nil))
	}
	if !s.omit["ah_manifest"] {
		m.ExportFunc("ah_manifest", m.Func(nil, i64, nil, PackPtrLen(16, uint32(len(s.manifest)))))
	}
	for name, body := range s.hooks {
		m.ExportFunc(name, m.Func(ptrLn, i64, nil, body))
	}
	if s.extra != nil {
		s.extra(&m)
	}
	return m.Bytes()
}

// write stores the module in a temporary file and returns its path.
func (s spec) write(t testing.TB) string {
	t.Helper()
	return writeModule(t, s.bytes())
}

func writeModule(t testing.TB, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "plugin.wasm")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Bodies used by several tests.
var (
	noOpinion = I64Const(0)
	infLoop   = concat(Loop(), Br(0), End, I64Const(0))
	trap      = concat(Unreachable)
)

func concat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func classifyManifest(name string) string {
	return `{"abi":1,"name":"` + name + `","version":"1","hooks":["classify"]}`
}
