package state

import (
	"context"
	"os/exec"
	"testing"
)

const benchCommand = `printf '{"bookings": 3}'`

// BenchmarkProbeRun is one probe run: sh -c, read, parse (behaviour §14,
// SPEC §22: ≤ the command's own time + 5 ms). BenchmarkCommandAlone is the
// same command by os/exec alone, the baseline.
func BenchmarkProbeRun(b *testing.B) {
	p := Probe{Command: benchCommand}
	for b.Loop() {
		if s := p.Run(context.Background(), "after"); s.Error != "" {
			b.Fatal(s.Error)
		}
	}
}

func BenchmarkCommandAlone(b *testing.B) {
	for b.Loop() {
		if _, err := exec.Command("sh", "-c", benchCommand).Output(); err != nil {
			b.Fatal(err)
		}
	}
}
