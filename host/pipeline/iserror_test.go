package pipeline

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// isErrorResultReference is the definition isErrorResult must match: the
// result decoded by encoding/json into a struct with an isError field.
func isErrorResultReference(result []byte) (isErr, ok bool) {
	var r struct {
		IsError json.RawMessage `json:"isError"`
	}
	t := bytes.TrimSpace(result)
	if len(t) == 0 || t[0] != '{' {
		return false, false
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return false, false
	}
	return bytes.Equal(bytes.TrimSpace(r.IsError), []byte("true")), true
}

func TestIsErrorResult(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct {
		name   string
		result string
		isErr  bool
		ok     bool
	}{
		{"isError true", `{"isError":true}`, true, true},
		{"isError true with space", " \t\r\n{ \"isError\" :\ttrue\n} \n", true, true},
		{"isError true after content", `{"content":[{"type":"text","text":"no"}],"isError":true}`, true, true},
		{"isError false", `{"isError":false}`, false, true},
		{"isError absent", `{"content":[]}`, false, true},
		{"empty object", `{}`, false, true},
		{"isError string", `{"isError":"true"}`, false, true},
		{"isError number", `{"isError":1}`, false, true},
		{"isError null", `{"isError":null}`, false, true},
		{"isError object", `{"isError":{"isError":true}}`, false, true},
		{"nested isError in content", `{"content":[{"isError":true}]}`, false, true},
		{"nested isError in object", `{"meta":{"isError":true}}`, false, true},
		{"isError inside a string", `{"text":"\"isError\":true"}`, false, true},
		{"last member wins (false)", `{"isError":true,"isError":false}`, false, true},
		{"last member wins (true)", `{"isError":false,"isError":true}`, true, true},
		{"name case-insensitive as encoding/json", `{"ISERROR":true}`, true, true},
		{"name with escapes", `{"is\u0045rror":true}`, true, true},
		{"name with long s folds to s", "{\"i\u017fError\":true}", true, true},
		{"name with dotless i does not fold", "{\"\u0131sError\":true}", false, true},
		{"longer name", `{"isErrors":true}`, false, true},
		{"invalid UTF-8 in a string", "{\"text\":\"\xff\xfe\",\"isError\":true}", true, true},
		{"nested 9999 deep", `{"a":` + deep(9999) + `,"isError":true}`, true, true},
		{"nested 10000 deep", `{"a":` + deep(10000) + `,"isError":true}`, false, false},
		{"array", `[{"isError":true}]`, false, false},
		{"string", `"isError"`, false, false},
		{"empty", ``, false, false},
		{"only space", "  \n", false, false},
		{"truncated", `{"`, false, false},
		{"truncated after isError", `{"isError":true`, false, false},
		{"literal misspelt", `{"isError":tru}`, false, false},
		{"literal followed by letters", `{"isError":truex}`, false, false},
		{"trailing comma", `{"isError":true,}`, false, false},
		{"trailing garbage", `{"isError":true} x`, false, false},
		{"two objects", `{}{}`, false, false},
		{"invalid nested value", `{"isError":true,"a":[1,]}`, false, false},
		{"leading zero", `{"a":01}`, false, false},
		{"bad number", `{"a":-}`, false, false},
		{"bad fraction", `{"a":1.}`, false, false},
		{"bad exponent", `{"a":1e+}`, false, false},
		{"good number", `{"a":-0.5e+10,"isError":true}`, true, true},
		{"bad escape", `{"a":"\x"}`, false, false},
		{"short unicode escape", `{"a":"\u12"}`, false, false},
		{"control character in string", "{\"a\":\"\x01\"}", false, false},
		{"vertical tab is not JSON space", "\v{\"isError\":true}", false, false},
		{"missing colon", `{"isError" true}`, false, false},
		{"unquoted name", `{isError:true}`, false, false},
		{"mismatched brackets", `{"a":[}`, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isErr, ok := isErrorResult([]byte(tt.result))
			if isErr != tt.isErr || ok != tt.ok {
				t.Errorf("isErrorResult = %v, %v; want %v, %v", isErr, ok, tt.isErr, tt.ok)
			}
			if ri, rok := isErrorResultReference([]byte(tt.result)); ri != isErr || rok != ok {
				t.Errorf("reference = %v, %v; fast scan = %v, %v", ri, rok, isErr, ok)
			}
		})
	}
}

// FuzzIsErrorResult: the one-pass scan agrees with the encoding/json
// reference on every input.
func FuzzIsErrorResult(f *testing.F) {
	for _, s := range []string{
		`{"isError":true}`, `{"isError":false}`, `{}`, `[]`, `{"`, `{"isError":tru}`,
		`{"a":{"isError":true}}`, ` {"isError":true} `, `{"ISERROR":true,"x":[1,2.5e3,null,"\u00e9"]}`,
		"{\"i\u017fError\":true}", `{"isError":true,"isError":1}`, `{"content":[{"type":"text","text":"ok"}],"isError":true}`,
		`{"a":[[[[{"b":-0}]]]],"isError":true}`, `{"is\u0045rror":true}`, "{\"\xff\":1}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		isErr, ok := isErrorResult(b)
		ri, rok := isErrorResultReference(b)
		if isErr != ri || ok != rok {
			t.Fatalf("%q: fast scan %v, %v; reference %v, %v", b, isErr, ok, ri, rok)
		}
	})
}

// BenchmarkIsErrorResult compares the one-pass scan with the encoding/json
// reference on a typical small result and a 90 KB one.
func BenchmarkIsErrorResult(b *testing.B) {
	results := map[string][]byte{
		"small": []byte(`{"content":[{"type":"text","text":"create_booking done"}]}`),
		"90KB": []byte(`{"content":[{"type":"text","text":"` + strings.Repeat("booking ", 11000) +
			`"}],"structuredContent":{"rows":[1,2.5,{"id":"b-1"}]},"isError":false}`),
	}
	for _, name := range []string{"small", "90KB"} {
		r := results[name]
		for _, impl := range []struct {
			name string
			fn   func([]byte) (bool, bool)
		}{{"scan", isErrorResult}, {"reference", isErrorResultReference}} {
			b.Run(name+"/"+impl.name, func(b *testing.B) {
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
