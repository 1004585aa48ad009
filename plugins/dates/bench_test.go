package main

import (
	"testing"

	"github.com/cuonztech/agent-harness/sdk"
)

var benchInput = []byte(`{"tool":"create_booking","arguments":{"date":"03.11.2026","guest":"Ada Lovelace","room":"12B","nights":2,"amount":129.00,"idempotency_key":"k-1"},"keyFields":["idempotency_key"]}`)

func BenchmarkHandle(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		sdk.Handle(sdk.HookEquivKey, benchInput)
	}
}
