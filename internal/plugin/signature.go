package plugin

import (
	"strings"

	"github.com/tetratelabs/wazero/api"
)

// signature renders "(i32, i32) -> i64".
func signature(params, results []api.ValueType) string {
	names := func(vs []api.ValueType) string {
		s := make([]string, len(vs))
		for i, v := range vs {
			s[i] = api.ValueTypeName(v)
		}
		return strings.Join(s, ", ")
	}
	r := names(results)
	if len(results) != 1 {
		r = "(" + r + ")"
	}
	return "(" + names(params) + ") -> " + r
}

func joinComma(s []string) string { return strings.Join(s, ", ") }
