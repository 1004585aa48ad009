package neardup

import (
	"fmt"
	"strings"
	"testing"
)

func BenchmarkSimilar(b *testing.B) {
	const n = 100000
	row := func(i int) string { return fmt.Sprintf(`{"id":%d,"name":"Row %d"}`, i, i) }
	deep := func(leaf string) []byte {
		return []byte(strings.Repeat(`{"a":[`, 5000) + leaf + strings.Repeat(`]}`, 5000))
	}
	for _, bc := range []struct {
		name string
		a, b []byte
	}{
		{"typical", []byte(`{"to":"DE89 3704 0044 0532 0130 00","amount":129.00,"currency":"EUR","memo":"Invoice 42"}`),
			[]byte(`{"to":"DE89370400440532013000","amount":"129","currency":"eur","memo":"Invoice 42"}`)},
		{"typical-different", []byte(`{"to":"DE89 3704 0044 0532 0130 00","amount":129.00,"currency":"EUR","memo":"Invoice 42"}`),
			[]byte(`{"to":"DE89370400440532013000","amount":"130","currency":"USD","memo":"Invoice 43"}`)},
		{"booking-date-notation", []byte(`{"room":"12","guest":"Ada Lovelace","date":"2026-11-03","nights":2}`),
			[]byte(`{"room":"12","guest":"Ada Lovelace","date":"03.11.2026","nights":2}`)},
		{"booking-other-day", []byte(`{"room":"12","guest":"Ada Lovelace","date":"2026-11-03","nights":2}`),
			[]byte(`{"room":"12","guest":"Ada Lovelace","date":"2026-11-04","nights":2}`)},
		{"array-1000-dates-all-changed", bigArray(1000, func(i int) string { return fmt.Sprintf(`"%d-01-01"`, 2000+i) }),
			bigArray(1000, func(i int) string { return fmt.Sprintf(`"%d-01-02"`, 2000+i) })},
		{"array-1000-dates-reversed-notation", bigArray(1000, func(i int) string { return fmt.Sprintf(`"%d-01-01"`, 2000+i) }),
			bigArray(1000, func(i int) string { return fmt.Sprintf(`"1 Jan %d"`, 2999-i) })},
		{"array-100k-identical", bigArray(n, row), bigArray(n, row)},
		{"array-100k-one-changed", bigArray(n, row), bigArray(n, func(i int) string {
			if i == n/2 {
				return row(n + 1)
			}
			return row(i)
		})},
		{"array-100k-reversed", bigArray(n, row), bigArray(n, func(i int) string { return row(n - 1 - i) })},
		{"array-100k-reversed-and-case", bigArray(n, row), bigArray(n, func(i int) string {
			return fmt.Sprintf(`{"id":"%d","name":"ROW %d"}`, n-1-i, n-1-i)
		})},
		{"nesting-10k-leaf-changed", deep("1"), deep("2")},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Similar(bc.a, bc.b)
			}
		})
	}
}

func BenchmarkSimilarBinaryTree(b *testing.B) {
	x, y := "1", "2"
	for len(x) < 1<<20 {
		x = "[" + x + "," + x + "]"
		y = "[" + y + "," + y + "]"
	}
	b.ReportAllocs()
	for b.Loop() {
		Similar([]byte(x), []byte(y))
	}
}
