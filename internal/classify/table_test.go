package classify

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// specTools are the four tools of the behaviour §2.2 sample.
var specTools = []Tool{
	{Name: "create_booking", InputSchema: json.RawMessage(`{"type":"object","properties":{"date":{},"idempotency_key":{}}}`)},
	{Name: "get_booking"},
	{Name: "apply_discount", Annotations: json.RawMessage(`{"readOnlyHint":false}`)},
	{Name: "sync_ledger"},
}

func ExampleTable() {
	entries := NewChain(ChainOptions{}).Entries(specTools, keyMatch)
	fmt.Print(Table(entries, []string{"idempotency_key"}))
	// Output:
	// [agent-harness] Upstream tools (4):
	// [agent-harness]   write        create_booking  (default write pattern)
	// [agent-harness]   read         get_booking  (read prefix)
	// [agent-harness]   write        apply_discount  (annotation readOnlyHint=false)
	// [agent-harness]   unclassified sync_ledger  (no annotation, no pattern match)
	// [agent-harness] WARNING: tool "sync_ledger" could not be classified as read or write. It is forwarded but no scenario fires on it and it is not judged; name it with --write-tools or --read-tools.
	// [agent-harness] Key field recognised: create_booking (idempotency_key)
}

func TestTable(t *testing.T) {
	tests := []struct {
		name    string
		entries []Entry
		keys    []string
		want    []string
	}{
		{"spec sample lines", NewChain(ChainOptions{}).Entries(specTools[:2], keyMatch), []string{"idempotency_key"}, []string{
			"[agent-harness] Upstream tools (2):",
			"[agent-harness]   write        create_booking  (default write pattern)",
			"[agent-harness]   read         get_booking  (read prefix)",
			"[agent-harness] Key field recognised: create_booking (idempotency_key)",
		}},
		{"no key field names the configured fields", []Entry{{Name: "create_booking", Class: Write, Reason: "r"}},
			[]string{"idempotency_key", "request_id"}, []string{
				"[agent-harness] Upstream tools (1):",
				"[agent-harness]   write        create_booking  (r)",
				"[agent-harness] No tool has a key field (idempotency_key, request_id).",
			}},
		{"several key fields on one line", []Entry{{Name: "pay_x", Class: Write, Reason: "r", KeyFields: []string{"idempotency_key", "Request-Id"}}},
			nil, []string{
				"[agent-harness] Upstream tools (1):",
				"[agent-harness]   write        pay_x  (r)",
				"[agent-harness] Key field recognised: pay_x (idempotency_key, Request-Id)",
			}},
		{"no write tool warns", []Entry{{Name: "get_x", Class: Read, Reason: "read prefix"}}, []string{"idempotency_key"}, []string{
			"[agent-harness] Upstream tools (1):",
			"[agent-harness]   read         get_x  (read prefix)",
			"[agent-harness] WARNING: no tool is classified as write, so no write can be faulted or judged; name the write tools with --write-tools.",
			"[agent-harness] No tool has a key field (idempotency_key).",
		}},
		{"no tools warns", nil, []string{"idempotency_key"}, []string{
			"[agent-harness] Upstream tools (0):",
			"[agent-harness] WARNING: the upstream lists no tools; there is nothing to test.",
			"[agent-harness] No tool has a key field (idempotency_key).",
		}},
		{"no configured key field names", []Entry{{Name: "add_x", Class: Write, Reason: "r"}}, nil, []string{
			"[agent-harness] Upstream tools (1):",
			"[agent-harness]   write        add_x  (r)",
			"[agent-harness] No tool has a key field.",
		}},
		{"odd names are quoted and stay on one line", []Entry{
			{Name: "create_x\n[agent-harness]   read fake", Class: Write, Reason: "plugin:\nnewline"},
			{Name: "", Class: Unclassified, Reason: "no annotation, no pattern match"},
		}, nil, []string{
			"[agent-harness] Upstream tools (2):",
			`[agent-harness]   write        "create_x\n[agent-harness]   read fake"  (plugin:\nnewline)`,
			`[agent-harness]   unclassified ""  (no annotation, no pattern match)`,
			`[agent-harness] WARNING: tool "" could not be classified as read or write. It is forwarded but no scenario fires on it and it is not judged; name it with --write-tools or --read-tools.`,
			"[agent-harness] No tool has a key field.",
		}},
		{"long names are cut", []Entry{{Name: strings.Repeat("é", 150), Class: Write, Reason: "r"}}, nil, []string{
			"[agent-harness] Upstream tools (1):",
			"[agent-harness]   write        " + strings.Repeat("é", 100) + "…  (r)",
			"[agent-harness] No tool has a key field.",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Table(tt.entries, tt.keys)
			want := strings.Join(tt.want, "\n") + "\n"
			if got != want {
				t.Errorf("Table:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}
