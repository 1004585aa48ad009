// Package abi names the exports of agent-harness plugin ABI v1 (see
// ../ABI.md): the one list both sides use. The host checks a module's
// exports against these names and the guest SDK declares them; a test in
// the SDK keeps its //go:wasmexport directives (which must be literal)
// equal to them.
//
// It holds constants only and imports nothing, so the host may import it
// without taking the guest SDK's code into the binary.
package abi

// Version is the ABI major version.
const Version = 1

// Export names every plugin has.
const (
	// ExportMarker marks a module as implementing ABI v1: a function
	// taking and returning nothing. A module with another ah_abi_vN is
	// refused with "wrong ABI version N".
	ExportMarker = "ah_abi_v1"
	// ExportAlloc is ah_alloc(size i32) -> ptr i32: a buffer for the
	// host to write one input into.
	ExportAlloc = "ah_alloc"
	// ExportFree is ah_free(ptr i32): the host no longer uses ptr.
	ExportFree = "ah_free"
	// ExportManifest is ah_manifest() -> i64: the manifest JSON.
	ExportManifest = "ah_manifest"
	// ExportInit is the optional ah_init(ptr, len i32) -> i64: the
	// configuration, answered with nothing or {"error": …}.
	ExportInit = "ah_init"
	// ExportMemory is the linear memory every plugin exports.
	ExportMemory = "memory"
)

// Hook names, as a manifest's "hooks" lists them.
const (
	HookClassify  = "classify"
	HookEquivKey  = "equiv_key"
	HookEquivSame = "equiv_same"
	HookFault     = "fault"
)

// Hook exports: ExportPrefix + the hook name, each (ptr, len i32) -> i64.
const (
	ExportPrefix    = "ah_"
	ExportClassify  = ExportPrefix + HookClassify
	ExportEquivKey  = ExportPrefix + HookEquivKey
	ExportEquivSame = ExportPrefix + HookEquivSame
	ExportFault     = ExportPrefix + HookFault
)
