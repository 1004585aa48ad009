package plugin_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/plugin"
	. "github.com/cuonztech/agent-harness/internal/plugin/plugintest/wasmbin"
)

// testOptions keeps tests off the user's cache directory and quiet.
// testOptions gives a generous per-call deadline: tests run under -race on
// loaded 2-core machines, where a Go plugin's first calls can take longer
// than the 100 ms default. Tests about deadlines set their own.
func testOptions(t testing.TB) plugin.Options {
	return plugin.Options{CacheDir: sharedCache(t), Log: &logBuffer{}, Timeout: 10 * time.Second}
}

func TestLoadErrors(t *testing.T) {
	okManifest := classifyManifest("x")
	classifyHook := map[string][]byte{"ah_classify": noOpinion}
	errData := `{"error":"bad config"}`
	tests := []struct {
		name    string
		module  []byte
		config  json.RawMessage
		opts    func(*plugin.Options)
		target  error
		message string
	}{
		{name: "not wasm", module: []byte("hello world"), target: plugin.ErrNotWasm,
			message: "not a WebAssembly module"},
		{name: "component", module: []byte("\x00asm\x0d\x00\x01\x00"), target: plugin.ErrNotWasm,
			message: "binary version 0d000100 is not 1"},
		{name: "missing alloc", module: spec{manifest: okManifest, hooks: classifyHook, omit: map[string]bool{"ah_alloc": true}}.bytes(),
			target: plugin.ErrMissingExport, message: "missing export ah_alloc"},
		{name: "missing memory", module: spec{manifest: okManifest, hooks: classifyHook, omit: map[string]bool{"memory": true}}.bytes(),
			target: plugin.ErrMissingExport, message: "missing export memory"},
		{name: "missing manifest", module: spec{manifest: okManifest, hooks: classifyHook, omit: map[string]bool{"ah_manifest": true}}.bytes(),
			target: plugin.ErrMissingExport, message: "missing export ah_manifest"},
		{name: "abi marker v2", module: spec{manifest: okManifest, hooks: classifyHook, abi: "ah_abi_v2"}.bytes(),
			target: plugin.ErrABIVersion, message: "wrong ABI version 2 (want 1)"},
		{name: "manifest abi 2", module: spec{manifest: `{"abi":2,"name":"x","version":"1","hooks":["classify"]}`, hooks: classifyHook}.bytes(),
			target: plugin.ErrABIVersion, message: "wrong ABI version 2 (want 1)"},
		{name: "no abi marker", module: spec{manifest: okManifest, hooks: classifyHook, abi: "hello"}.bytes(),
			target: plugin.ErrMissingExport, message: "missing export ah_abi_v1"},
		{name: "path_open", module: spec{manifest: okManifest, hooks: classifyHook, imports: [][2]string{{"wasi_snapshot_preview1", "path_open"}}}.bytes(),
			target: plugin.ErrImportNotAllowed, message: "import not allowed: wasi_snapshot_preview1.path_open"},
		{name: "unknown module", module: spec{manifest: okManifest, hooks: classifyHook, imports: [][2]string{{"env", "foo"}}}.bytes(),
			target: plugin.ErrImportNotAllowed, message: "import not allowed: env.foo"},
		{name: "whitelisted name wrong signature", module: spec{manifest: okManifest, hooks: classifyHook, imports: [][2]string{{"wasi_snapshot_preview1", "fd_write"}}}.bytes(),
			target: plugin.ErrSignature, message: "import wasi_snapshot_preview1.fd_write is (i32, i32, i32, i32, i32, i64, i64, i32, i32) -> i32, want (i32, i32, i32, i32) -> i32"},
		{name: "declared hook not exported", module: spec{manifest: okManifest}.bytes(),
			target: plugin.ErrMissingExport, message: "hook classify: missing export ah_classify"},
		{name: "hook signature", module: spec{manifest: okManifest, extra: func(m *Module) {
			m.ExportFunc("ah_classify", m.Func(nil, i64, nil, I64Const(0)))
		}}.bytes(), target: plugin.ErrSignature, message: "export ah_classify is () -> i64, want (i32, i32) -> i64"},
		{name: "manifest not json", module: spec{manifest: `{abi:1}`, hooks: classifyHook}.bytes(),
			target: plugin.ErrManifest, message: "invalid manifest"},
		{name: "manifest unknown hook", module: spec{manifest: `{"abi":1,"name":"x","version":"1","hooks":["teleport"]}`}.bytes(),
			target: plugin.ErrManifest, message: `unknown hook "teleport"`},
		{name: "manifest bad name", module: spec{manifest: `{"abi":1,"name":"Bad Name","version":"1","hooks":["classify"]}`, hooks: classifyHook}.bytes(),
			target: plugin.ErrManifest, message: `name "Bad Name"`},
		{name: "fault named like a built-in", module: spec{manifest: `{"abi":1,"name":"x","version":"1","hooks":["fault"],"faults":["f1"]}`,
			hooks: map[string][]byte{"ah_fault": noOpinion}}.bytes(), target: plugin.ErrManifest, message: `fault name "f1" is a built-in scenario`},
		{name: "fault hook without names", module: spec{manifest: `{"abi":1,"name":"x","version":"1","hooks":["fault"]}`,
			hooks: map[string][]byte{"ah_fault": noOpinion}}.bytes(), target: plugin.ErrManifest, message: "go together"},
		{name: "manifest traps", module: spec{manifest: okManifest, hooks: classifyHook, omit: map[string]bool{"ah_manifest": true}, extra: func(m *Module) {
			m.ExportFunc("ah_manifest", m.Func(nil, i64, nil, Unreachable))
		}}.bytes(), target: plugin.ErrManifest, message: "ah_manifest: trap: wasm error: unreachable"},
		{name: "init error", module: spec{manifest: okManifest, hooks: map[string][]byte{"ah_classify": noOpinion, "ah_init": PackPtrLen(1024, uint32(len(errData)))},
			data: map[uint32]string{1024: errData}}.bytes(), target: plugin.ErrInit, message: "init failed: bad config"},
		{name: "init traps", module: spec{manifest: okManifest, hooks: map[string][]byte{"ah_classify": noOpinion, "ah_init": trap}}.bytes(),
			target: plugin.ErrInit, message: "init failed: ah_init: trap: wasm error: unreachable"},
		{name: "config without init", module: spec{manifest: okManifest, hooks: classifyHook}.bytes(), config: json.RawMessage(`{"a":1}`),
			target: plugin.ErrInit, message: "takes no configuration"},
		{name: "config not json", module: spec{manifest: okManifest, hooks: map[string][]byte{"ah_classify": noOpinion, "ah_init": noOpinion}}.bytes(),
			config: json.RawMessage(`{`), target: plugin.ErrInit, message: "configuration is not valid JSON"},
		{name: "command module", module: spec{manifest: okManifest, hooks: classifyHook, extra: func(m *Module) {
			m.ExportFunc("_start", m.Func(nil, nil, nil))
		}}.bytes(), message: "module is a command (exports _start)"},
		{name: "memory min above limit", module: spec{manifest: okManifest, hooks: classifyHook, memMin: 32}.bytes(),
			opts: func(o *plugin.Options) { o.MemoryMiB = 1 }, message: "compiling: section memory: min 32 pages (2 Mi) over limit of 16 pages (1 Mi)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeModule(t, tt.module)
			o := testOptions(t)
			o.Config = tt.config
			if tt.opts != nil {
				tt.opts(&o)
			}
			p, err := plugin.Load(context.Background(), path, o)
			if err == nil {
				p.Close(context.Background())
				t.Fatal("Load succeeded")
			}
			if tt.target != nil && !errors.Is(err, tt.target) {
				t.Errorf("error %q is not %v", err, tt.target)
			}
			if !strings.HasPrefix(err.Error(), "loading plugin "+path+": ") || !strings.Contains(err.Error(), tt.message) {
				t.Errorf("error %q, want prefix %q and %q", err, "loading plugin "+path+": ", tt.message)
			}
		})
	}
}

func TestLoadGoPluginErrors(t *testing.T) {
	t.Run("reads a file", func(t *testing.T) {
		_, err := plugin.Load(context.Background(), goPlugin(t, "./internal/plugin/testdata/readfile"), testOptions(t))
		if !errors.Is(err, plugin.ErrImportNotAllowed) || !strings.Contains(err.Error(), "wasi_snapshot_preview1.path_open") {
			t.Errorf("error %v, want import not allowed: …path_open", err)
		}
	})
	t.Run("init fails", func(t *testing.T) {
		o := testOptions(t)
		o.Config = json.RawMessage(`"fail"`)
		_, err := plugin.Load(context.Background(), goPlugin(t, "./internal/plugin/testdata/hostile"), o)
		if !errors.Is(err, plugin.ErrInit) || !strings.HasSuffix(err.Error(), "init failed: config says fail") {
			t.Errorf("error %v, want init failed: config says fail", err)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		if _, err := plugin.Load(context.Background(), "/nonexistent/x.wasm", testOptions(t)); err == nil {
			t.Error("Load succeeded")
		}
	})
}

func TestOptionsValidation(t *testing.T) {
	path := spec{manifest: classifyManifest("x"), hooks: map[string][]byte{"ah_classify": noOpinion}}.write(t)
	for name, o := range map[string]plugin.Options{
		"timeout too small": {Timeout: 1},
		"timeout too large": {Timeout: 61e9},
		"memory too large":  {MemoryMiB: 4097},
		"negative pool":     {PoolSize: -1},
	} {
		t.Run(name, func(t *testing.T) {
			o.NoCache = true
			if _, err := plugin.Load(context.Background(), path, o); err == nil {
				t.Error("Load succeeded")
			}
		})
	}
}
