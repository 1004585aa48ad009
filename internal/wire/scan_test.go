package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestValid(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"object", `{"a":1,"b":[true,false,null],"c":{"d":"e"}}`, true},
		{"whitespace", " \t\r\n{ \"a\" : [ 1 , 2 ] } \n", true},
		{"empty containers", `{"a":{},"b":[]}`, true},
		{"big integer", `{"n":9007199254740993}`, true},
		{"numbers", `[0,-0,1.5,-1e10,2E+3,3e-2,10]`, true},
		{"escapes", `"a\"\\\/\b\f\n\r\t\u00e9"`, true},
		{"scalar", `12`, true},
		{"leading zero", `01`, false},
		{"bare minus", `-`, false},
		{"dot without digits", `1.`, false},
		{"exponent without digits", `1e+`, false},
		{"trailing comma object", `{"a":1,}`, false},
		{"trailing comma array", `[1,]`, false},
		{"unterminated string", `"abc`, false},
		{"control char", "\"a\x01\"", false},
		{"bad escape", `"\x"`, false},
		{"short unicode", `"\u12"`, false},
		{"non-string key", `{1:2}`, false},
		{"missing colon", `{"a" 1}`, false},
		{"two values", `{} {}`, false},
		{"empty", ``, false},
		{"only space", `  `, false},
		{"bad literal", `tru`, false},
		{"mismatched close", `[1}`, false},
		{"unclosed", `[[1]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Valid([]byte(tt.in)); got != tt.want {
				t.Errorf("Valid(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestValidDeepNesting(t *testing.T) {
	const depth = 200000
	deep := strings.Repeat(`{"a":[`, depth) + "1" + strings.Repeat(`]}`, depth)
	if !Valid([]byte(deep)) {
		t.Fatal("deeply nested valid JSON reported invalid")
	}
	if Valid([]byte(deep[:len(deep)-1])) {
		t.Fatal("truncated deeply nested JSON reported valid")
	}
}

func TestParseEnvelope(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		wantID     string
		wantMethod string
		wantParams string
		wantResult string
		kind       string
		wantErr    error
	}{
		{name: "request", in: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}`,
			wantID: "7", wantMethod: "tools/call", wantParams: `{"name":"x"}`, kind: "request"},
		{name: "notification", in: `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`,
			wantMethod: "notifications/progress", wantParams: `{}`, kind: "notification"},
		{name: "response", in: `{"jsonrpc":"2.0","id":"a","result":{"x":1}}`,
			wantID: `"a"`, wantResult: `{"x":1}`, kind: "response"},
		{name: "escaped keys", in: `{"\u0069d":1,"meth\u006fd":"p\u0069ng"}`,
			wantID: "1", wantMethod: "ping", kind: "request"},
		{name: "batch", in: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, wantErr: ErrNotObject},
		{name: "scalar", in: `3`, wantErr: ErrNotObject},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := ParseEnvelope([]byte(tt.in))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if string(env.ID) != tt.wantID || env.Method != tt.wantMethod ||
				string(env.Params) != tt.wantParams || string(env.Result) != tt.wantResult {
				t.Errorf("got id=%s method=%q params=%s result=%s", env.ID, env.Method, env.Params, env.Result)
			}
			kind := ""
			switch {
			case env.IsRequest():
				kind = "request"
			case env.IsNotification():
				kind = "notification"
			case env.IsResponse():
				kind = "response"
			}
			if kind != tt.kind {
				t.Errorf("kind = %q, want %q", kind, tt.kind)
			}
			if env.Result != nil && string(tt.in[env.ResultStart:env.ResultStart+len(env.Result)]) != tt.wantResult {
				t.Errorf("ResultStart %d does not point at the result", env.ResultStart)
			}
		})
	}
}

func TestParseEnvelopeSyntaxError(t *testing.T) {
	var se *SyntaxError
	for _, in := range []string{`{"id":1,`, `not json`, `{"id":1}x`, `[1,2`} {
		if _, err := ParseEnvelope([]byte(in)); !errors.As(err, &se) {
			t.Errorf("ParseEnvelope(%q) err = %v, want *SyntaxError", in, err)
		}
	}
}

func TestIDKey(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		same bool
	}{
		{"same int", `1`, `1`, true},
		{"escaped string", `"a"`, `"\u0061"`, true},
		{"minus zero", `-0`, `0`, true},
		{"int vs string", `1`, `"1"`, false},
		{"different", `1`, `2`, false},
		{"big numbers by text", `123456789012345678901234567890`, `123456789012345678901234567890`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IDKey([]byte(tt.a)) == IDKey([]byte(tt.b)); got != tt.same {
				t.Errorf("IDKey(%s)==IDKey(%s) is %v, want %v", tt.a, tt.b, got, tt.same)
			}
		})
	}
}

func TestElementsAndLookup(t *testing.T) {
	obj := []byte(`{"tools":[ {"name":"a"} , {"name":"b","x":[1]} ],"nextCursor":"c2"}`)
	arr, start, ok := Lookup(obj, "tools")
	if !ok {
		t.Fatal("tools not found")
	}
	var names []string
	closing, err := Elements(arr, func(elem []byte, _ int) {
		v, _, _ := Lookup(elem, "name")
		s, _ := Unquote(v)
		names = append(names, s)
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(names, ",") != "a,b" {
		t.Errorf("names = %v", names)
	}
	if obj[start+closing] != ']' {
		t.Errorf("closing offset %d does not point at ']'", start+closing)
	}
	if c, _, _ := Lookup(obj, "nextCursor"); string(c) != `"c2"` {
		t.Errorf("nextCursor = %s", c)
	}
}

// FuzzValid checks the scanner against encoding/json for inputs within
// encoding/json's nesting limit.
func FuzzValid(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,2,{"b":null}]}`, `"\u00e9"`, `-0.5e+3`, `{"a":}`,
		`[1,]`, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}`, "\"\x7f\"", `01`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.Count(data, []byte("["))+bytes.Count(data, []byte("{")) > 9000 {
			t.Skip("beyond encoding/json's nesting limit")
		}
		if got, want := Valid(data), json.Valid(data); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", data, got, want)
		}
		env, err := ParseEnvelope(data)
		if err == nil && env.Result != nil && string(data[env.ResultStart:env.ResultStart+len(env.Result)]) != string(env.Result) {
			t.Fatalf("ResultStart wrong for %q", data)
		}
	})
}

func TestEnvelopeDepth(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{`{}`, 1},
		{`{"id":1}`, 1},
		{`{"params":{}}`, 2},
		{`{"params":[]}`, 2},
		{`{"params":{"a":[1,{"b":[]}]}}`, 5},
		{`{"a":[[[]]],"b":{}}`, 4},
		{`{"params":` + strings.Repeat("[", 50000) + strings.Repeat("]", 50000) + `}`, 50001},
	}
	for _, tt := range tests {
		env, err := ParseEnvelope([]byte(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		if env.Depth != tt.want {
			t.Errorf("depth of %.40s = %d, want %d", tt.in, env.Depth, tt.want)
		}
	}
}
