package wasmbin

import (
	"bytes"
	"context"
	"testing"

	"github.com/tetratelabs/wazero"
)

func TestLEB128(t *testing.T) {
	for _, tt := range []struct {
		v    int64
		want []byte
	}{{0, []byte{0}}, {63, []byte{0x3f}}, {64, []byte{0xc0, 0}}, {-1, []byte{0x7f}}, {-8, []byte{0x78}}, {-65, []byte{0xbf, 0x7f}}, {624485, []byte{0xe5, 0x8e, 0x26}}} {
		if got := s64(nil, tt.v); !bytes.Equal(got, tt.want) {
			t.Errorf("s64(%d) = %x, want %x", tt.v, got, tt.want)
		}
	}
	if got := u32(nil, 624485); !bytes.Equal(got, []byte{0xe5, 0x8e, 0x26}) {
		t.Errorf("u32 = %x", got)
	}
}

// A module using every encoder feature compiles and runs.
func TestModuleRuns(t *testing.T) {
	var m Module
	m.ImportFunc("env", "f", []ValType{I32}, nil)
	m.Memory(1, 2, true)
	g := m.Global(40)
	m.Data(8, []byte{2})
	add := m.Func([]ValType{I32}, []ValType{I64}, []ValType{I32},
		GlobalGet(g), LocalGet(0), I32Add, I32Const(0), I32Load(8), I32Add, LocalTee(1), Drop,
		LocalGet(1), I64ExtendI32U)
	m.ExportFunc("add", add)
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	r.NewHostModuleBuilder("env").NewFunctionBuilder().WithFunc(func(int32) {}).Export("f").Instantiate(ctx)
	mod, err := r.Instantiate(ctx, m.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	res, err := mod.ExportedFunction("add").Call(ctx, 0)
	if err != nil || res[0] != 42 {
		t.Errorf("add(0) = %v, %v; want 42", res, err)
	}
}
