package canon

import (
	"fmt"
	"strings"
	"testing"
)

// call112 is a typical write call's arguments (112 bytes).
var call112 = []byte(`{"idempotency_key":"3f2b9c1e-7a41","to":"DE89370400440532013000","amount":129.00,"currency":"EUR","memo":"inv4"}`)

func call10K() []byte {
	var b strings.Builder
	b.WriteString(`{"idempotency_key":"k-1","order":{"customer":{"email":"a@example.org","name":"Ada"},"items":[`)
	for i := 0; b.Len() < 10000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"sku":"SKU-%05d","qty":%d,"unitPrice":%d.%02d,"note":"item \u00e9 %d"}`, i, i%7+1, i*3, i%100, i)
	}
	b.WriteString(`]}}`)
	return []byte(b.String())
}

func BenchmarkOperation(b *testing.B) {
	for _, bc := range []struct {
		name string
		args []byte
	}{{"112B", call112}, {"10KB", call10K()}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.args)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Operation("pay", bc.args, KeyFields{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
