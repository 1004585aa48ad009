package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// scanReference is the definition scanResult and incompleteResult must
// match: the result decoded by encoding/json into a struct with isError
// and resultType fields, and the resultType value decoded as any.
func scanReference(result []byte) (isErr, incomplete bool, kind string, ok bool) {
	var r struct {
		IsError    json.RawMessage `json:"isError"`
		ResultType json.RawMessage `json:"resultType"`
	}
	t := bytes.TrimSpace(result)
	if len(t) == 0 || t[0] != '{' {
		return false, false, "", false
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return false, false, "", false
	}
	isErr = bytes.Equal(bytes.TrimSpace(r.IsError), []byte("true"))
	if r.ResultType == nil {
		return isErr, false, "", true
	}
	var v any
	if err := json.Unmarshal(r.ResultType, &v); err != nil {
		panic(err) // it was part of valid JSON
	}
	switch v := v.(type) {
	case nil:
		return isErr, false, "", true
	case string:
		if v == "" || v == "complete" {
			return isErr, false, "", true
		}
		return isErr, true, v, true
	}
	return isErr, true, string(bytes.TrimSpace(r.ResultType)), true
}

// scan is the fast path under test, in the reference's terms.
func scan(result []byte) (isErr, incomplete bool, kind string, ok bool) {
	r, ok := scanResult(result)
	kind, incomplete = incompleteResult(r.resultType)
	return r.isError, incomplete, kind, ok
}

func TestScanResult(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct {
		name   string
		result string
		isErr  bool
		ok     bool
		// kind is the result type of a result that is not complete, ""
		// for a complete one.
		kind string
	}{
		{"isError true", `{"isError":true}`, true, true, ""},
		{"isError true with space", " \t\r\n{ \"isError\" :\ttrue\n} \n", true, true, ""},
		{"isError true after content", `{"content":[{"type":"text","text":"no"}],"isError":true}`, true, true, ""},
		{"isError false", `{"isError":false}`, false, true, ""},
		{"isError absent", `{"content":[]}`, false, true, ""},
		{"empty object", `{}`, false, true, ""},
		{"isError string", `{"isError":"true"}`, false, true, ""},
		{"isError number", `{"isError":1}`, false, true, ""},
		{"isError null", `{"isError":null}`, false, true, ""},
		{"isError object", `{"isError":{"isError":true}}`, false, true, ""},
		{"nested isError in content", `{"content":[{"isError":true}]}`, false, true, ""},
		{"nested isError in object", `{"meta":{"isError":true}}`, false, true, ""},
		{"isError inside a string", `{"text":"\"isError\":true"}`, false, true, ""},
		{"last member wins (false)", `{"isError":true,"isError":false}`, false, true, ""},
		{"last member wins (true)", `{"isError":false,"isError":true}`, true, true, ""},
		{"name case-insensitive as encoding/json", `{"ISERROR":true}`, true, true, ""},
		{"name with escapes", `{"is\u0045rror":true}`, true, true, ""},
		{"name with long s folds to s", "{\"i\u017fError\":true}", true, true, ""},
		{"name with dotless i does not fold", "{\"\u0131sError\":true}", false, true, ""},
		{"longer name", `{"isErrors":true}`, false, true, ""},
		{"invalid UTF-8 in a string", "{\"text\":\"\xff\xfe\",\"isError\":true}", true, true, ""},
		{"nested 9999 deep", `{"a":` + deep(9999) + `,"isError":true}`, true, true, ""},
		{"nested 10000 deep", `{"a":` + deep(10000) + `,"isError":true}`, false, false, ""},
		{"array", `[{"isError":true}]`, false, false, ""},
		{"string", `"isError"`, false, false, ""},
		{"empty", ``, false, false, ""},
		{"only space", "  \n", false, false, ""},
		{"truncated", `{"`, false, false, ""},
		{"truncated after isError", `{"isError":true`, false, false, ""},
		{"literal misspelt", `{"isError":tru}`, false, false, ""},
		{"literal followed by letters", `{"isError":truex}`, false, false, ""},
		{"trailing comma", `{"isError":true,}`, false, false, ""},
		{"trailing garbage", `{"isError":true} x`, false, false, ""},
		{"two objects", `{}{}`, false, false, ""},
		{"invalid nested value", `{"isError":true,"a":[1,]}`, false, false, ""},
		{"leading zero", `{"a":01}`, false, false, ""},
		{"bad number", `{"a":-}`, false, false, ""},
		{"bad fraction", `{"a":1.}`, false, false, ""},
		{"bad exponent", `{"a":1e+}`, false, false, ""},
		{"good number", `{"a":-0.5e+10,"isError":true}`, true, true, ""},
		{"bad escape", `{"a":"\x"}`, false, false, ""},
		{"short unicode escape", `{"a":"\u12"}`, false, false, ""},
		{"control character in string", "{\"a\":\"\x01\"}", false, false, ""},
		{"vertical tab is not JSON space", "\v{\"isError\":true}", false, false, ""},
		{"missing colon", `{"isError" true}`, false, false, ""},
		{"unquoted name", `{isError:true}`, false, false, ""},
		{"mismatched brackets", `{"a":[}`, false, false, ""},

		// resultType (MCP 2026-07-28 multi-round-trip).
		{"resultType input_required", `{"resultType":"input_required","inputRequests":{"r1":{"method":"elicitation/create"}},"requestState":"s"}`, false, true, "input_required"},
		{"resultType complete", `{"content":[],"resultType":"complete"}`, false, true, ""},
		{"resultType empty is complete", `{"resultType":""}`, false, true, ""},
		{"resultType null is complete", `{"resultType":null}`, false, true, ""},
		{"resultType complete escaped", `{"resultType":"compl\u0065te"}`, false, true, ""},
		{"resultType other string", `{"resultType":"pending"}`, false, true, "pending"},
		{"resultType Complete is not complete", `{"resultType":"Complete"}`, false, true, "Complete"},
		{"resultType escaped kind", `{"resultType":"input\u005frequired"}`, false, true, "input_required"},
		{"resultType number", `{"resultType":1}`, false, true, "1"},
		{"resultType object", `{"resultType":{"a":[1, 2]}}`, false, true, `{"a":[1, 2]}`},
		{"resultType with isError", `{"isError":true,"resultType":"input_required"}`, true, true, "input_required"},
		{"resultType name case-insensitive", `{"RESULTTYPE":"input_required"}`, false, true, "input_required"},
		{"resultType last member wins", `{"resultType":"input_required","resultType":"complete"}`, false, true, ""},
		{"resultType last member wins (incomplete)", `{"resultType":"complete","resulttype":"input_required"}`, false, true, "input_required"},
		{"resultType nested not read", `{"structuredContent":{"resultType":"input_required"}}`, false, true, ""},
		{"resultType in an invalid result", `{"resultType":"input_required",}`, false, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isErr, incomplete, kind, ok := scan([]byte(tt.result))
			if isErr != tt.isErr || ok != tt.ok || kind != tt.kind || incomplete != (tt.kind != "") {
				t.Errorf("scan = isError %v, ok %v, incomplete %v %q; want %v, %v, %q", isErr, ok, incomplete, kind, tt.isErr, tt.ok, tt.kind)
			}
			ri, rinc, rkind, rok := scanReference([]byte(tt.result))
			if ri != isErr || rok != ok || rinc != incomplete || rkind != kind {
				t.Errorf("reference = %v, %v, %v %q; fast scan = %v, %v, %v %q", ri, rok, rinc, rkind, isErr, ok, incomplete, kind)
			}
		})
	}
}

// FuzzIsErrorResult: the one-pass scan (isError and resultType) agrees
// with the encoding/json reference on every input.
func FuzzIsErrorResult(f *testing.F) {
	for _, s := range []string{
		`{"isError":true}`, `{"isError":false}`, `{}`, `[]`, `{"`, `{"isError":tru}`,
		`{"a":{"isError":true}}`, ` {"isError":true} `, `{"ISERROR":true,"x":[1,2.5e3,null,"\u00e9"]}`,
		"{\"i\u017fError\":true}", `{"isError":true,"isError":1}`, `{"content":[{"type":"text","text":"ok"}],"isError":true}`,
		`{"a":[[[[{"b":-0}]]]],"isError":true}`, `{"is\u0045rror":true}`, "{\"\xff\":1}",
		`{"resultType":"input_required"}`, `{"resultType":"complete"}`, `{"resultType":null}`, `{"resultType":""}`,
		`{"resultType":["x"]}`, `{"re\u0073ultType":"a\u00e9"}`, "{\"re\u017fultType\":\"x\"}", "{\"resultType\":\"\xff\"}",
		`{"resultType":"input_required","resultType":"complete","isError":true}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		isErr, inc, kind, ok := scan(b)
		ri, rinc, rkind, rok := scanReference(b)
		if isErr != ri || ok != rok || inc != rinc || kind != rkind {
			t.Fatalf("%q: fast scan %v, %v, %v %q; reference %v, %v, %v %q", b, isErr, ok, inc, kind, ri, rok, rinc, rkind)
		}
	})
}

// realisticResult is a CallToolResult of about size bytes: a text block
// (half the size) and structuredContent rows; a one-line result when size
// is 0.
func realisticResult(size int) []byte {
	if size == 0 {
		return []byte(`{"content":[{"type":"text","text":"create_booking done: booking b-1042 for 2 guests"}],"isError":false}`)
	}
	var b strings.Builder
	b.WriteString(`{"content":[{"type":"text","text":"`)
	for i := 0; b.Len() < size/2; i++ {
		fmt.Fprintf(&b, `row %d: booking b-%d, guest \"Ada L.\", 2 nights\n`, i, i)
	}
	b.WriteString(`"}],"structuredContent":{"rows":[`)
	for i := 0; b.Len() < size-40; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"b-%d","nights":%d,"price":%d.50,"tags":["a","b"]}`, i, i%5+1, 100+i)
	}
	b.WriteString(`]},"isError":false}`)
	return []byte(b.String())
}

// BenchmarkIsErrorResult compares the one-pass scan with the encoding/json
// reference (the standard decoder: json.Unmarshal into a struct of two
// json.RawMessage fields) on realistic results: small, 10 KB, 90 KB, 1 MB.
func BenchmarkIsErrorResult(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"small", 0}, {"10KB", 10_000}, {"90KB", 90_000}, {"1MB", 1_000_000}} {
		r := realisticResult(size.n)
		for _, impl := range []struct {
			name string
			fn   func([]byte) (bool, bool)
		}{{"scan", func(r []byte) (bool, bool) { s, ok := scanResult(r); return s.isError, ok }},
			{"reference", func(r []byte) (bool, bool) { i, _, _, ok := scanReference(r); return i, ok }}} {
			b.Run(size.name+"/"+impl.name, func(b *testing.B) {
				b.SetBytes(int64(len(r)))
				b.ReportAllocs()
				for b.Loop() {
					if _, ok := impl.fn(r); !ok {
						b.Fatal("not an object")
					}
				}
			})
		}
	}
}
