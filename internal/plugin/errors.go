package plugin

import "errors"

// Errors that callers branch on. Load and LoadAll wrap them with the path
// and details, e.g. "loading plugin x.wasm: missing export ah_alloc".
var (
	// ErrNotWasm: the file is not a WebAssembly binary module.
	ErrNotWasm = errors.New("not a WebAssembly module")
	// ErrMissingExport: a required export is absent ("missing export NAME").
	ErrMissingExport = errors.New("missing export")
	// ErrSignature: an export or import has the wrong signature.
	ErrSignature = errors.New("wrong signature")
	// ErrABIVersion: the module implements another ABI major version
	// ("wrong ABI version N (want 1)").
	ErrABIVersion = errors.New("wrong ABI version")
	// ErrImportNotAllowed: the module imports something outside the
	// sandbox whitelist ("import not allowed: module.name").
	ErrImportNotAllowed = errors.New("import not allowed")
	// ErrManifest: ah_manifest failed or returned an invalid manifest.
	ErrManifest = errors.New("invalid manifest")
	// ErrInit: ah_init returned an error or failed ("init failed: msg").
	ErrInit = errors.New("init failed")
	// ErrHook: a hook call failed (trap, deadline, limit, garbage or an
	// {"error":...} answer). The failure was already reported through
	// Options.OnFailure; callers treat the call as "no opinion".
	ErrHook = errors.New("plugin hook failed")
	// ErrDisabled: the plugin was disabled by the circuit breaker; its hooks
	// are no longer called.
	ErrDisabled = errors.New("plugin disabled")
)
