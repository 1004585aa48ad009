// Package sdk is the Go guest SDK for agent-harness plugins (ABI v1,
// documented in ABI.md beside this file).
//
// A plugin is an ordinary Go main package built as a WebAssembly reactor:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o dates.wasm ./plugins/dates
//
// It registers typed handlers from an init function (main is not run in a
// reactor):
//
//	func init() {
//		sdk.Register(sdk.Plugin{
//			Name: "dates", Version: "0.1.0",
//			EquivKey: func(c sdk.Call) (string, bool, error) { … },
//		})
//	}
//
//	func main() {}
//
// The SDK owns every export of the ABI (ah_abi_v1, ah_alloc, ah_free,
// ah_manifest, ah_init, ah_classify, ah_equiv_key, ah_equiv_same, ah_fault),
// the input and output buffers, JSON encoding, and panic recovery: a
// handler that panics or returns an error becomes an {"error": …} answer,
// which the host counts as a plugin failure. The manifest is derived from
// the registered handlers.
//
// On other platforms the package compiles without the exports, so plugin
// logic can be unit-tested natively; Handle runs the same JSON dispatch the
// exports use.
//
// The sandbox gives no files, network, environment variables or real
// clock: time.Now is a fake clock that starts at 2026-01-01T00:00:00Z,
// time.Sleep returns at once, and crypto/rand and math/rand are seeded
// deterministically. Anything printed goes to a capped log on the host's
// stderr. Code that opens files (os.ReadFile, os.Open) makes the module
// import path_open and the host refuses to load it.
package sdk
