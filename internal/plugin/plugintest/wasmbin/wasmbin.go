// Package wasmbin assembles small WebAssembly modules by hand. It exists so
// tests can build hostile or minimal plugins without a WAT toolchain (none is
// available offline); it encodes exactly the subset of the binary format
// those modules use: function types, function imports, functions, one
// memory, mutable i32 globals, exports and active data segments.
//
// The encoding follows the WebAssembly Core Specification 2.0, §5 "Binary
// Format". Instruction bodies are raw bytes built with the helpers in
// instr.go.
package wasmbin

// ValType is a WebAssembly value type.
type ValType byte

// Value types.
const (
	I32 ValType = 0x7f
	I64 ValType = 0x7e
)

// Export kinds.
const (
	kindFunc   = 0x00
	kindMemory = 0x02
)

type funcType struct {
	params, results []ValType
}

type funcImport struct {
	module, name string
	typ          uint32
}

type function struct {
	typ    uint32
	locals []ValType
	body   []byte
}

type export struct {
	name  string
	kind  byte
	index uint32
}

type global struct {
	init int32
}

type segment struct {
	offset uint32
	data   []byte
}

// Module is a module under construction. Add imports before functions:
// function indices count imports first, as in the binary format.
type Module struct {
	types   []funcType
	imports []funcImport
	funcs   []function
	exports []export
	globals []global
	data    []segment
	memory  bool
	memMin  uint32
	memMax  uint32
	hasMax  bool
}

// ImportFunc adds a function import and returns its function index.
func (m *Module) ImportFunc(module, name string, params, results []ValType) uint32 {
	if len(m.funcs) > 0 {
		panic("wasmbin: imports must be added before functions")
	}
	m.imports = append(m.imports, funcImport{module, name, m.typeIndex(params, results)})
	return uint32(len(m.imports) - 1)
}

// Func adds a function with the given locals (beyond the parameters) and
// body instructions; the final `end` is appended. It returns the function
// index.
func (m *Module) Func(params, results, locals []ValType, body ...[]byte) uint32 {
	var b []byte
	for _, in := range body {
		b = append(b, in...)
	}
	b = append(b, opEnd)
	m.funcs = append(m.funcs, function{m.typeIndex(params, results), locals, b})
	return uint32(len(m.imports) + len(m.funcs) - 1)
}

// ExportFunc exports function index idx as name.
func (m *Module) ExportFunc(name string, idx uint32) {
	m.exports = append(m.exports, export{name, kindFunc, idx})
}

// Memory defines the module's memory with min pages and, when max >= 0, a
// maximum; it is exported as "memory" unless exported is false.
func (m *Module) Memory(min uint32, max int64, exported bool) {
	m.memory, m.memMin = true, min
	if max >= 0 {
		m.hasMax, m.memMax = true, uint32(max)
	}
	if exported {
		m.exports = append(m.exports, export{"memory", kindMemory, 0})
	}
}

// Global adds a mutable i32 global with an initial value and returns its
// index.
func (m *Module) Global(init int32) uint32 {
	m.globals = append(m.globals, global{init})
	return uint32(len(m.globals) - 1)
}

// Data adds an active data segment at a constant offset of memory 0.
func (m *Module) Data(offset uint32, data []byte) {
	m.data = append(m.data, segment{offset, data})
}

func (m *Module) typeIndex(params, results []ValType) uint32 {
	for i, t := range m.types {
		if equal(t.params, params) && equal(t.results, results) {
			return uint32(i)
		}
	}
	m.types = append(m.types, funcType{params, results})
	return uint32(len(m.types) - 1)
}

func equal(a, b []ValType) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Bytes encodes the module.
func (m *Module) Bytes() []byte {
	out := []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}
	out = vecSection(out, 1, m.types, func(s []byte, t funcType) []byte {
		s = append(s, 0x60)
		s = vals(s, t.params)
		return vals(s, t.results)
	})
	out = vecSection(out, 2, m.imports, func(s []byte, im funcImport) []byte {
		s = name(s, im.module)
		s = name(s, im.name)
		s = append(s, kindFunc)
		return u32(s, im.typ)
	})
	out = vecSection(out, 3, m.funcs, func(s []byte, f function) []byte { return u32(s, f.typ) })
	if m.memory {
		s := []byte{1}
		if m.hasMax {
			s = append(s, 1)
			s = u32(s, m.memMin)
			s = u32(s, m.memMax)
		} else {
			s = append(s, 0)
			s = u32(s, m.memMin)
		}
		out = section(out, 5, s)
	}
	out = vecSection(out, 6, m.globals, func(s []byte, g global) []byte {
		s = append(s, byte(I32), 1) // mutable i32
		s = append(s, I32Const(g.init)...)
		return append(s, opEnd)
	})
	out = vecSection(out, 7, m.exports, func(s []byte, e export) []byte {
		s = name(s, e.name)
		s = append(s, e.kind)
		return u32(s, e.index)
	})
	out = vecSection(out, 10, m.funcs, func(s []byte, f function) []byte {
		var body []byte
		body = u32(body, uint32(len(f.locals)))
		for _, l := range f.locals {
			body = append(body, 1, byte(l))
		}
		body = append(body, f.body...)
		s = u32(s, uint32(len(body)))
		return append(s, body...)
	})
	return vecSection(out, 11, m.data, func(s []byte, d segment) []byte {
		s = append(s, 0) // active, memory 0
		s = append(s, I32Const(int32(d.offset))...)
		s = append(s, opEnd)
		s = u32(s, uint32(len(d.data)))
		return append(s, d.data...)
	})
}

// vecSection appends section id holding items as a vector (their count,
// then each as enc writes it); nothing when there are no items.
func vecSection[T any](out []byte, id byte, items []T, enc func([]byte, T) []byte) []byte {
	if len(items) == 0 {
		return out
	}
	s := u32(nil, uint32(len(items)))
	for _, it := range items {
		s = enc(s, it)
	}
	return section(out, id, s)
}

func section(out []byte, id byte, content []byte) []byte {
	out = append(out, id)
	out = u32(out, uint32(len(content)))
	return append(out, content...)
}

func vals(s []byte, vs []ValType) []byte {
	s = u32(s, uint32(len(vs)))
	for _, v := range vs {
		s = append(s, byte(v))
	}
	return s
}

func name(s []byte, n string) []byte {
	s = u32(s, uint32(len(n)))
	return append(s, n...)
}

// u32 appends v as unsigned LEB128.
func u32(b []byte, v uint32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}

// s64 appends v as signed LEB128.
func s64(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
