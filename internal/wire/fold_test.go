package wire

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseEnvelopeCaseVariant(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		got, want string
	}{
		{"exact members", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{},"x-other":1}`, "", ""},
		{"upper-case ID", `{"jsonrpc":"2.0","ID":88,"method":"tools/call"}`, "ID", "id"},
		{"Method", `{"jsonrpc":"2.0","id":77,"Method":"tools/call"}`, "Method", "method"},
		{"PARAMS beside params", `{"id":1,"method":"m","params":{},"PARAMS":{}}`, "PARAMS", "params"},
		{"Result", `{"id":1,"Result":{}}`, "Result", "result"},
		{"Error", `{"id":1,"eRRor":{}}`, "eRRor", "error"},
		{"JSONRPC", `{"JSONRPC":"2.0","id":1,"method":"m"}`, "JSONRPC", "jsonrpc"},
		{"escaped upper-case", `{"id":1,"\u004dethod":"m"}`, "Method", "method"},
		{"escaped exact", `{"\u0069d":1,"method":"m"}`, "", ""},
		{"nested names are not looked at", `{"id":1,"method":"m","params":{"ID":2}, "jsonrpc":"2.0"}`, "", ""},
		{"long s folds to s", `{"id":1,"method":"m","paramſ":{}}`, "paramſ", "params"},
		{"same length other name", `{"id":1,"method":"m","params":{},"paramz":{}}`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := ParseEnvelope([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if env.Variant != tt.got || env.VariantOf != tt.want {
				t.Errorf("variant %q of %q, want %q of %q", env.Variant, env.VariantOf, tt.got, tt.want)
			}
		})
	}
}

func TestCaseVariantKelvin(t *testing.T) {
	// "ſ" (U+017F) and "K" (U+212A) fold to ASCII letters.
	names := []string{"name", "kind"}
	for _, key := range []string{`"\u212aind"`, `"Kind"`, `"nameſ"`} {
		got, want, ok := Member{Key: []byte(key)}.CaseVariant(names)
		wantOK := key != `"nameſ"`
		if ok != wantOK {
			t.Errorf("CaseVariant(%s) = %q, %q, %v; want ok %v", key, got, want, ok, wantOK)
		}
	}
}

// FuzzCaseVariant checks CaseVariant and NameFolds against encoding/json: a
// member name is reported as a variant of "name" exactly when encoding/json
// decodes it into a struct field named "name" and the name is not "name"
// itself; NameFolds names that field.
func FuzzCaseVariant(f *testing.F) {
	for _, k := range []string{`"name"`, `"NAME"`, `"Name"`, `"\u004eame"`, `"nAmE"`, `"namf"`, `"\u212aey"`, `"ſ"`, `"names"`} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, key string) {
		if !Valid([]byte(key)) || !strings.HasPrefix(key, `"`) {
			return
		}
		var v struct {
			Name *int `json:"name"`
			Key  *int `json:"key"`
		}
		msg := []byte(`{` + key + `:1}`)
		if err := json.Unmarshal(msg, &v); err != nil {
			return
		}
		// The member as the parser hands it over: its Key is the string
		// token alone, without the whitespace a fuzzed key may carry.
		var m Member
		if _, err := Members(msg, func(got Member) bool { m = got; return false }); err != nil {
			t.Fatalf("Members(%s): %v, but encoding/json decodes it", msg, err)
		}
		s, _ := Unquote(m.Key)
		decodedAsField := (v.Name != nil && s != "name") || (v.Key != nil && s != "key")
		_, _, ok := m.CaseVariant([]string{"name", "key"})
		if ok != decodedAsField {
			t.Fatalf("CaseVariant(%s) = %v, encoding/json decodes it into a field: %v", key, ok, decodedAsField)
		}
		// NameFolds names the field encoding/json decodes into, exact
		// names included.
		want := ""
		switch {
		case v.Name != nil:
			want = "name"
		case v.Key != nil:
			want = "key"
		}
		if got, ok := m.NameFolds([]string{"name", "key"}); got != want || ok != (want != "") {
			t.Fatalf("NameFolds(%s) = %q, %v; encoding/json decodes it into %q", key, got, ok, want)
		}
	})
}

func TestNameFolds(t *testing.T) {
	names := []string{"isError", "resultType"}
	for key, want := range map[string]string{
		`"isError"`: "isError", `"ISERROR"`: "isError", `"is\u0045rror"`: "isError", `"i` + "\u017f" + `Error"`: "isError",
		`"resulttype"`: "resultType", `"re\u0073ultType"`: "resultType",
		`"` + "\u0131" + `sError"`: "", `"isErrors"`: "", `"isErro"`: "", `""`: "", `"content"`: "",
		`"` + strings.Repeat(`\u0069`, 11) + `"`: "",
	} {
		got, ok := Member{Key: []byte(key)}.NameFolds(names)
		if got != want || ok != (want != "") {
			t.Errorf("NameFolds(%s) = %q, %v; want %q", key, got, ok, want)
		}
	}
}
