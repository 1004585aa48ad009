package classify

import (
	"strings"
	"testing"
)

// TestIdempotency has one case per rule of behaviour §4.8: a write tool is
// idempotent by idempotentHint: true or an --idempotent-tools glob;
// --ignore-idempotent-hint drops the hint, not the globs.
func TestIdempotency(t *testing.T) {
	hint := ann(`{"readOnlyHint":false,"idempotentHint":true}`)
	tests := []struct {
		name string
		opts ChainOptions
		tool Tool
		want Result
	}{
		{"idempotentHint on a write", ChainOptions{}, Tool{Name: "set_status", Annotations: hint},
			Result{Class: Write, Reason: "annotation readOnlyHint=false; idempotent: annotation idempotentHint=true", Idempotent: true}},
		{"idempotentHint on a write by name", ChainOptions{}, Tool{Name: "update_profile", Annotations: ann(`{"idempotentHint":true}`)},
			Result{Class: Write, Reason: "default write pattern; idempotent: annotation idempotentHint=true", Idempotent: true}},
		{"idempotentHint false", ChainOptions{}, Tool{Name: "update_profile", Annotations: ann(`{"idempotentHint":false}`)},
			Result{Class: Write, Reason: "default write pattern"}},
		{"idempotentHint as a string is absent", ChainOptions{}, Tool{Name: "update_profile", Annotations: ann(`{"idempotentHint":"true"}`)},
			Result{Class: Write, Reason: "default write pattern"}},
		{"idempotentHint on a read is not idempotent", ChainOptions{}, Tool{Name: "get_x", Annotations: ann(`{"readOnlyHint":true,"idempotentHint":true}`)},
			Result{Class: Read, Reason: "annotation readOnlyHint=true"}},
		{"idempotentHint alone gives no class", ChainOptions{}, Tool{Name: "sync_ledger", Annotations: ann(`{"idempotentHint":true}`)},
			Result{Class: Unclassified, Reason: "no annotation, no pattern match"}},
		{"glob makes a write idempotent", ChainOptions{IdempotentTools: []string{"update_*"}}, Tool{Name: "update_profile"},
			Result{Class: Write, Reason: "default write pattern; idempotent: --idempotent-tools glob update_*", Idempotent: true}},
		{"glob does not make a read idempotent", ChainOptions{IdempotentTools: []string{"*"}}, Tool{Name: "get_x"},
			Result{Class: Read, Reason: "read prefix"}},
		{"glob does not classify", ChainOptions{IdempotentTools: []string{"*"}}, Tool{Name: "sync_ledger"},
			Result{Class: Unclassified, Reason: "no annotation, no pattern match"}},
		{"glob is named before the hint", ChainOptions{IdempotentTools: []string{"set_*"}}, Tool{Name: "set_status", Annotations: hint},
			Result{Class: Write, Reason: "annotation readOnlyHint=false; idempotent: --idempotent-tools glob set_*", Idempotent: true}},
		{"ignore the hint", ChainOptions{IgnoreIdempotentHint: true}, Tool{Name: "set_status", Annotations: hint},
			Result{Class: Write, Reason: "annotation readOnlyHint=false"}},
		{"ignoring the hint keeps the globs", ChainOptions{IgnoreIdempotentHint: true, IdempotentTools: []string{"set_*"}}, Tool{Name: "set_status", Annotations: hint},
			Result{Class: Write, Reason: "annotation readOnlyHint=false; idempotent: --idempotent-tools glob set_*", Idempotent: true}},
		{"globs are case-sensitive", ChainOptions{IdempotentTools: []string{"Set_*"}}, Tool{Name: "set_status", Annotations: ann(`{"readOnlyHint":false}`)},
			Result{Class: Write, Reason: "annotation readOnlyHint=false"}},
		{"plugin answer cannot claim idempotency", ChainOptions{Plugins: []Classifier{&stub{r: Result{Class: Write, Reason: "p", Idempotent: true}, ok: true}}},
			Tool{Name: "x"}, Result{Class: Write, Reason: "p"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NewChain(tt.opts).Classify(tt.tool); got != tt.want {
				t.Errorf("Classify(%s) = %+v, want %+v", tt.tool.Name, got, tt.want)
			}
		})
	}
}

func TestIdempotentEntryAndTable(t *testing.T) {
	tools := []Tool{
		{Name: "set_status", Annotations: ann(`{"readOnlyHint":false,"idempotentHint":true}`)},
		{Name: "create_booking"},
	}
	es := NewChain(ChainOptions{}).Entries(tools, keyMatch)
	if !es[0].Idempotent || es[1].Idempotent {
		t.Fatalf("entries %+v: want only set_status idempotent", es)
	}
	b, _ := es[0].MarshalJSON()
	if !strings.Contains(string(b), `"idempotent":true`) {
		t.Errorf("entry JSON %s lacks \"idempotent\":true", b)
	}
	if b, _ := es[1].MarshalJSON(); strings.Contains(string(b), `idempotent"`) {
		t.Errorf("entry JSON %s: idempotent should be absent", b)
	}
	table := Table(es, nil)
	want := "[agent-harness]   write (idempotent) set_status  (annotation readOnlyHint=false; idempotent: annotation idempotentHint=true)\n" +
		"[agent-harness]   write        create_booking  (default write pattern)\n"
	if !strings.Contains(table, want) {
		t.Errorf("table:\n%s\nwant lines:\n%s", table, want)
	}
}

func TestListingIdempotentTwice(t *testing.T) {
	l := NewListing([]Entry{
		{Name: "a", Class: Write, Idempotent: true},
		{Name: "a", Class: Write},
		{Name: "b", Class: Write, Idempotent: true},
		{Name: "b", Class: Write, Idempotent: true},
	})
	if l.Lookup("a").Idempotent {
		t.Error("a listed once not idempotent: must not be idempotent")
	}
	if !l.Lookup("b").Idempotent {
		t.Error("b listed twice idempotent: must stay idempotent")
	}
}
