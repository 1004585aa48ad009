//go:build wasip1

package sdk

import "unsafe"

//go:wasmimport agent_harness log
func hostLog(level uint32, ptr unsafe.Pointer, n uint32)

func writeLog(level int, msg string) {
	if msg == "" {
		return
	}
	hostLog(uint32(level), unsafe.Pointer(unsafe.StringData(msg)), uint32(len(msg)))
}
