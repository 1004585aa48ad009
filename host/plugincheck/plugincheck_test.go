package plugincheck_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/host/plugincheck"
	. "github.com/cuonztech/agent-harness/internal/plugin/plugintest/wasmbin"
	"github.com/cuonztech/agent-harness/plugins/minimal"
)

func write(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCheckMinimal: the minimal plugin passes every check that applies to
// its hooks, in order.
func TestCheckMinimal(t *testing.T) {
	rs := plugincheck.Check(context.Background(), write(t, "minimal.wasm", minimal.Wasm), plugincheck.Options{NoCache: true})
	var names []string
	for _, r := range rs {
		names = append(names, r.Name)
		if !r.OK() {
			t.Errorf("%s: %s", r.Name, r.Failure)
		}
	}
	want := []string{"load", "classify", "equiv_key", "fault", "many calls", "concurrent calls", "stays enabled"}
	if !slices.Equal(names, want) {
		t.Errorf("checks %q, want %q", names, want)
	}
}

// TestCheckNamesTheFailingHook: a classify hook that answers an invalid
// class fails "classify", where the failure happened, with the host's
// detail, and "stays enabled"; a module that does not load has the one
// result "load".
func TestCheckNamesTheFailingHook(t *testing.T) {
	const manifest = `{"abi":1,"name":"bad-class","version":"1","hooks":["classify","equiv_key"]}`
	const answer = `{"class":"sideways"}`
	var m Module
	m.Memory(20, -1, true)
	m.Data(16, []byte(manifest))
	m.Data(512, []byte(answer))
	ptrLen, i64 := []ValType{I32, I32}, []ValType{I64}
	m.ExportFunc("ah_abi_v1", m.Func(nil, nil, nil))
	m.ExportFunc("ah_alloc", m.Func([]ValType{I32}, []ValType{I32}, nil, I32Const(4096)))
	m.ExportFunc("ah_free", m.Func([]ValType{I32}, nil, nil))
	m.ExportFunc("ah_manifest", m.Func(nil, i64, nil, PackPtrLen(16, uint32(len(manifest)))))
	m.ExportFunc("ah_classify", m.Func(ptrLen, i64, nil, PackPtrLen(512, uint32(len(answer)))))
	m.ExportFunc("ah_equiv_key", m.Func(ptrLen, i64, nil, I64Const(0)))
	rs := plugincheck.Check(context.Background(), write(t, "bad.wasm", m.Bytes()), plugincheck.Options{NoCache: true})
	failed := map[string]string{}
	var names []string
	for _, r := range rs {
		names = append(names, r.Name)
		if !r.OK() {
			failed[r.Name] = r.Failure
		}
	}
	if want := []string{"load", "classify", "equiv_key", "many calls", "concurrent calls", "stays enabled"}; !slices.Equal(names, want) {
		t.Fatalf("checks %q, want %q", names, want)
	}
	if f := failed["classify"]; !strings.HasPrefix(f, "plugin failure: classify create_booking: ") || !strings.Contains(f, "sideways") {
		t.Errorf("classify: %q", f)
	}
	if f := failed["stays enabled"]; !strings.HasPrefix(f, "disabled after ") {
		t.Errorf("stays enabled: %q", f)
	}
	// The circuit breaker tripped during classify, so equiv_key meets a
	// disabled plugin; the checks after it make no calls that could fail.
	if f := failed["equiv_key"]; !strings.Contains(f, "plugin bad-class disabled after repeated failures") || len(failed) != 3 {
		t.Errorf("failed checks %q, want classify, equiv_key (disabled) and stays enabled", failed)
	}

	rs = plugincheck.Check(context.Background(), write(t, "empty.wasm", nil), plugincheck.Options{NoCache: true})
	if len(rs) != 1 || rs[0].Name != "load" || rs[0].OK() {
		t.Errorf("an empty file: %+v, want one failed load", rs)
	}
}
