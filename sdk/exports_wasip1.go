//go:build wasip1

package sdk

import "unsafe"

// buffers keeps every buffer handed out by ah_alloc reachable (Go's
// collector does not move objects, so the address stays valid) until
// ah_free.
var buffers = map[unsafe.Pointer][]byte{}

// lastOut keeps the latest output alive until the next call into this
// instance; the host copies it at once.
var lastOut []byte

//go:wasmexport ah_abi_v1
func abiV1() {}

//go:wasmexport ah_alloc
func alloc(size uint32) unsafe.Pointer {
	if size == 0 {
		size = 1
	}
	b := make([]byte, size)
	ptr := unsafe.Pointer(&b[0])
	buffers[ptr] = b
	return ptr
}

//go:wasmexport ah_free
func free(ptr unsafe.Pointer) { delete(buffers, ptr) }

//go:wasmexport ah_manifest
func manifestExport() uint64 { return output(Handle(HookManifest, nil)) }

//go:wasmexport ah_init
func initExport(ptr unsafe.Pointer, n uint32) uint64 { return output(Handle(HookInit, input(ptr, n))) }

//go:wasmexport ah_classify
func classifyExport(ptr unsafe.Pointer, n uint32) uint64 {
	return output(Handle(HookClassify, input(ptr, n)))
}

//go:wasmexport ah_equiv_key
func equivKeyExport(ptr unsafe.Pointer, n uint32) uint64 {
	return output(Handle(HookEquivKey, input(ptr, n)))
}

//go:wasmexport ah_equiv_same
func equivSameExport(ptr unsafe.Pointer, n uint32) uint64 {
	return output(Handle(HookEquivSame, input(ptr, n)))
}

//go:wasmexport ah_fault
func faultExport(ptr unsafe.Pointer, n uint32) uint64 {
	return output(Handle(HookFault, input(ptr, n)))
}

//go:wasmexport ah_state
func stateExport(ptr unsafe.Pointer, n uint32) uint64 {
	return output(Handle(HookState, input(ptr, n)))
}

// input views the host-written input; handlers copy what they keep (the
// host reuses the buffer).
func input(ptr unsafe.Pointer, n uint32) []byte {
	if n == 0 || ptr == nil {
		return nil
	}
	return unsafe.Slice((*byte)(ptr), n)
}

// output packs out as ptr<<32 | len, keeping it alive until the next call.
func output(out []byte) uint64 {
	lastOut = out
	if len(out) == 0 {
		return 0
	}
	return uint64(uintptr(unsafe.Pointer(&out[0])))<<32 | uint64(len(out))
}
