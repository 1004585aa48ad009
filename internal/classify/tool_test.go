package classify

import (
	"encoding/json"
	"fmt"
	"testing"
)

func TestToolUnmarshalJSON(t *testing.T) {
	tests := []struct {
		name, in string
		want     Tool
		wantErr  bool
	}{
		{"full definition", `{"name":"create_booking","description":"Books.","annotations":{"readOnlyHint":false},"inputSchema":{"type":"object"},"execution":{}}`,
			Tool{Name: "create_booking", Description: "Books.", Annotations: json.RawMessage(`{"readOnlyHint":false}`), InputSchema: json.RawMessage(`{"type":"object"}`)}, false},
		{"absent annotations stay nil", `{"name":"x"}`, Tool{Name: "x"}, false},
		{"member names are case-sensitive", `{"name":"x","Annotations":{"readOnlyHint":true},"NAME":"y"}`, Tool{Name: "x"}, false},
		{"null annotations kept raw", `{"name":"x","annotations":null}`, Tool{Name: "x", Annotations: json.RawMessage(`null`)}, false},
		{"non-string description ignored", `{"name":"x","description":{"text":"d"}}`, Tool{Name: "x"}, false},
		{"name not a string", `{"name":1}`, Tool{}, true},
		{"null name", `{"name":null}`, Tool{}, true},
		{"not an object", `["x"]`, Tool{}, true},
		{"null", `null`, Tool{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Tool
			err := json.Unmarshal([]byte(tt.in), &got)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, wantErr %v", err, tt.wantErr)
			}
			if !tt.wantErr && fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func FuzzToolUnmarshalJSON(f *testing.F) {
	f.Add([]byte(`{"name":"x","annotations":{"readOnlyHint":true}}`))
	f.Add([]byte(`{"name":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var tool Tool
		if json.Unmarshal(data, &tool) == nil {
			NewChain(ChainOptions{}).Classify(tool)
		}
	})
}
