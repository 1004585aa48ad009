package classify

import (
	"encoding/json"
	"fmt"
	"testing"
)

func TestEntryJSON(t *testing.T) {
	tests := []struct {
		name  string
		entry Entry
		want  string
	}{
		{"no key fields is an empty array", Entry{Name: "get_booking", Class: Read, Reason: "read prefix"},
			`{"name":"get_booking","class":"read","reason":"read prefix","keyFields":[]}`},
		{"key fields listed", Entry{Name: "create_booking", Class: Write, Reason: "default write pattern", KeyFields: []string{"idempotency_key"}},
			`{"name":"create_booking","class":"write","reason":"default write pattern","keyFields":["idempotency_key"]}`},
		{"outputSchema is not part of the report", Entry{Name: "create_booking", Class: Write, Reason: "default write pattern", KeyFields: []string{"idempotency_key"}, OutputSchema: true},
			`{"name":"create_booking","class":"write","reason":"default write pattern","keyFields":["idempotency_key"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal([]Entry{tt.entry})
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != "["+tt.want+"]" {
				t.Errorf("got  %s\nwant [%s]", got, tt.want)
			}
		})
	}
}

func TestChainEntries(t *testing.T) {
	tools := []Tool{
		{Name: "create_booking", InputSchema: json.RawMessage(`{"properties":{"idempotency_key":{}}}`)},
		{Name: "get_booking"},
	}
	got := NewChain(ChainOptions{}).Entries(tools, keyMatch)
	want := []Entry{
		{Name: "create_booking", Class: Write, Reason: "default write pattern", KeyFields: []string{"idempotency_key"}},
		{Name: "get_booking", Class: Read, Reason: "read prefix"},
	}
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Errorf("Entries = %+v\nwant      %+v", got, want)
	}
}

func TestListingLookup(t *testing.T) {
	l := NewListing([]Entry{
		{Name: "create_booking", Class: Write, Reason: "default write pattern", KeyFields: []string{"idempotency_key"}},
		{Name: "get_booking", Class: Read, Reason: "read prefix"},
		{Name: "twice", Class: Read, Reason: "read prefix"},
		{Name: "twice", Class: Write, Reason: "annotation readOnlyHint=false", KeyFields: []string{"k"}},
		{Name: "same_twice", Class: Read, Reason: "read prefix"},
		{Name: "same_twice", Class: Read, Reason: "annotation readOnlyHint=true"},
		{Name: "schema_once", Class: Write, Reason: "default write pattern"},
		{Name: "schema_once", Class: Write, Reason: "default write pattern", OutputSchema: true},
	})
	tests := []struct {
		name, tool string
		want       Entry
	}{
		{"listed write", "create_booking", Entry{Name: "create_booking", Class: Write, Reason: "default write pattern", KeyFields: []string{"idempotency_key"}}},
		{"listed read", "get_booking", Entry{Name: "get_booking", Class: Read, Reason: "read prefix"}},
		{"not listed is unknown even when a pattern matches", "create_invoice", Entry{Name: "create_invoice", Class: Unknown, Reason: "not in the upstream's tool list"}},
		{"names are exact", "Create_booking", Entry{Name: "Create_booking", Class: Unknown, Reason: "not in the upstream's tool list"}},
		{"listed twice with different classes is unclassified", "twice", Entry{Name: "twice", Class: Unclassified, Reason: "listed twice with different classifications", KeyFields: []string{"k"}}},
		{"listed twice alike keeps the first", "same_twice", Entry{Name: "same_twice", Class: Read, Reason: "read prefix"}},
		{"listed twice, one definition with an outputSchema", "schema_once", Entry{Name: "schema_once", Class: Write, Reason: "default write pattern", OutputSchema: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := l.Lookup(tt.tool); fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", tt.want) {
				t.Errorf("Lookup(%q) = %+v, want %+v", tt.tool, got, tt.want)
			}
		})
	}
	var zero *Listing
	if got := zero.Lookup("x"); got.Class != Unknown {
		t.Errorf("nil Listing: class %q, want unknown", got.Class)
	}
}
