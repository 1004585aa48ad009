package plugin_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/plugin"
	. "github.com/cuonztech/agent-harness/internal/plugin/plugintest/wasmbin"
)

// fdWriteBomb is a classify plugin whose hook makes one fd_write(1, …) of
// iovs buffers, each covering the first size bytes of its memory of pages
// pages, then answers "no opinion".
func fdWriteBomb(iovs int, size uint32, pages uint32) []byte {
	const iovAt = 4096
	var m Module
	m.ImportFunc("wasi_snapshot_preview1", "fd_write", []ValType{I32, I32, I32, I32}, i32)
	m.Memory(pages, -1, true)
	man := classifyManifest("fdbomb")
	m.Data(16, []byte(man))
	vec := make([]byte, 0, iovs*8)
	for range iovs {
		vec = append(vec, 0, 0, 0, 0, byte(size), byte(size>>8), byte(size>>16), byte(size>>24))
	}
	m.Data(iovAt, vec)
	m.ExportFunc("ah_abi_v1", m.Func(nil, nil, nil))
	m.ExportFunc("ah_alloc", m.Func(i32, i32, nil, I32Const(65536)))
	m.ExportFunc("ah_free", m.Func(i32, nil, nil))
	m.ExportFunc("ah_manifest", m.Func(nil, i64, nil, PackPtrLen(16, uint32(len(man)))))
	body := concat(I32Const(1), I32Const(iovAt), I32Const(int32(iovs)), I32Const(2048), Call(0), Drop, I64Const(0))
	m.ExportFunc("ah_classify", m.Func(ptrLn, i64, nil, body))
	return m.Bytes()
}

// TestHostCallWorkBounded: a host function cannot be stopped by the call's
// deadline, so its work must not grow with what the guest hands it. One
// fd_write of 1,024 buffers of 64 MiB each (64 GiB of output) used to be
// copied and scanned in full, far past any deadline; now the plugin log
// looks only at what it can still show, so the hook finishes well within a
// deadline of 10 s and the log says once that its limit was reached.
func TestHostCallWorkBounded(t *testing.T) {
	p, f, log := loadWith(t, writeModule(t, fdWriteBomb(1024, 64<<20, 1024)), func(o *plugin.Options) {
		o.Timeout = 10 * time.Second
		o.MemoryMiB = 128
	})
	r, ok := p.Classifier().Classify(classify.Tool{Name: "t"})
	if ok || len(f.get()) != 0 {
		t.Errorf("Classify = %+v, %v, failures %q; want no opinion and no failure", r, ok, f.get())
	}
	if n := strings.Count(log.String(), "output limit (65536 bytes) reached"); n != 1 {
		t.Errorf("%d output-limit notices, want 1; log %.300q", n, log.String())
	}
}
