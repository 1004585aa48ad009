package sandbox

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

func TestAllowed(t *testing.T) {
	if _, ok := Allowed(WASIModule, "path_open"); ok {
		t.Error("path_open is allowed")
	}
	if _, ok := Allowed("env", "fd_write"); ok {
		t.Error("env.fd_write is allowed")
	}
	sig, ok := Allowed(WASIModule, "fd_write")
	if !ok || len(sig.Params) != 4 || len(sig.Results) != 1 {
		t.Errorf("fd_write: %+v, %v", sig, ok)
	}
	if _, ok := Allowed(HostModule, "log"); !ok {
		t.Error("agent_harness.log is not allowed")
	}
}

func TestEnvDeterministic(t *testing.T) {
	a, b := NewEnv(nil), NewEnv(nil)
	pa, pb := make([]byte, 37), make([]byte, 37)
	a.read(pa)
	b.read(pb)
	if !bytes.Equal(pa, pb) {
		t.Error("two instances draw different random bytes")
	}
	if a.now() != ClockStep || a.now() != 2*ClockStep {
		t.Error("the clock does not advance one step per reading")
	}
	a.sleep(time.Hour)
	if got := a.now(); got != time.Hour+3*ClockStep {
		t.Errorf("after sleeping an hour: %v", got)
	}
}

// The host modules instantiate and their functions have the whitelisted
// signatures.
func TestInstantiate(t *testing.T) {
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	if err := Instantiate(ctx, r); err != nil {
		t.Fatal(err)
	}
	for _, name := range Names() {
		mod, fn, _ := cut(name)
		f, ok := r.Module(mod).ExportedFunctionDefinitions()[fn]
		sig, _ := Allowed(mod, fn)
		if !ok || !equalTypes(f.ParamTypes(), sig.Params) || !equalTypes(f.ResultTypes(), sig.Results) {
			t.Errorf("%s is missing or has another signature", name)
		}
	}
}

func cut(s string) (string, string, bool) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '.' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func equalTypes(a, b []api.ValueType) bool { return bytes.Equal(a, b) }
