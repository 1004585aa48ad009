package wire

import (
	"fmt"
	"strings"
	"testing"
)

// benchMessages are a small tools/call request, a 10 KB one and a 1 MB
// result.
func benchMessages() []struct {
	name string
	msg  []byte
} {
	var args strings.Builder
	for i := 0; args.Len() < 10000; i++ {
		if i > 0 {
			args.WriteByte(',')
		}
		fmt.Fprintf(&args, `{"sku":"SKU-%05d","qty":%d,"unitPrice":%d.%02d,"note":"item \u00e9 %d"}`, i, i%7+1, i*3, i%100, i)
	}
	var result strings.Builder
	result.WriteString(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"`)
	for i := 0; result.Len() < 500_000; i++ {
		fmt.Fprintf(&result, `row %d: booking b-%d, guest \"Ada L.\", 2 nights\n`, i, i)
	}
	result.WriteString(`"}],"structuredContent":{"rows":[`)
	for i := 0; result.Len() < 1_000_000; i++ {
		if i > 0 {
			result.WriteByte(',')
		}
		fmt.Fprintf(&result, `{"id":"b-%d","nights":%d,"price":%d.50,"tags":["a","b"]}`, i, i%5+1, 100+i)
	}
	result.WriteString(`]},"isError":false}}`)
	return []struct {
		name string
		msg  []byte
	}{
		{"small", []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"pay","arguments":{"idempotency_key":"3f2b9c1e-7a41","to":"DE89370400440532013000","amount":129.00,"currency":"EUR","memo":"inv4"}}}`)},
		{"10KB", []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"pay","arguments":{"items":[` + args.String() + `]}}}`)},
		{"1MB", []byte(result.String())},
	}
}

func BenchmarkParseEnvelope(b *testing.B) {
	for _, m := range benchMessages() {
		b.Run(m.name, func(b *testing.B) {
			b.SetBytes(int64(len(m.msg)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseEnvelope(m.msg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkIDKey(b *testing.B) {
	for _, id := range []string{`7`, `"req-7"`, `1.0e2`, `123456789012345678901234567890`} {
		b.Run(id, func(b *testing.B) {
			raw := []byte(id)
			b.ReportAllocs()
			for b.Loop() {
				_ = IDKey(raw)
			}
		})
	}
}
