package classify

import (
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// stub is a plugin stage with a fixed answer that counts its calls.
type stub struct {
	r     Result
	ok    bool
	calls atomic.Int64
}

func (s *stub) Classify(Tool) (Result, bool) {
	s.calls.Add(1)
	return s.r, s.ok
}

type panicker struct{}

func (panicker) Classify(Tool) (Result, bool) { panic("plugin bug") }

func ann(s string) json.RawMessage { return json.RawMessage(s) }

// TestChainRules has one case per classification rule of behaviour §2.2, named
// after the rule.
func TestChainRules(t *testing.T) {
	pluginWrite := &stub{r: Result{Class: Write, Reason: "plugin test: ledger writes"}, ok: true}
	pluginNoOpinion := &stub{}
	tests := []struct {
		name string
		opts ChainOptions
		tool Tool
		want Result
	}{
		// Explicit flags.
		{"write-tools glob makes a write", ChainOptions{WriteTools: []string{"sync_*"}},
			Tool{Name: "sync_ledger"}, Result{Class: Write, Reason: "--write-tools glob sync_*"}},
		{"read-tools glob makes a read", ChainOptions{ReadTools: []string{"sync_*"}},
			Tool{Name: "sync_ledger"}, Result{Class: Read, Reason: "--read-tools glob sync_*"}},
		{"both globs match: write wins", ChainOptions{WriteTools: []string{"book_*"}, ReadTools: []string{"*"}},
			Tool{Name: "book_room"}, Result{Class: Write, Reason: "--write-tools glob book_* (wins over --read-tools glob *)"}},
		{"read-tools star with write-tools: the rest reads", ChainOptions{WriteTools: []string{"book_*"}, ReadTools: []string{"*"}},
			Tool{Name: "sync_ledger"}, Result{Class: Read, Reason: "--read-tools glob *"}},
		{"first matching write glob is named", ChainOptions{WriteTools: []string{"x*", "sync_*", "*"}},
			Tool{Name: "sync_ledger"}, Result{Class: Write, Reason: "--write-tools glob sync_*"}},
		{"write-tools beats readOnlyHint=true", ChainOptions{WriteTools: []string{"get_*"}},
			Tool{Name: "get_booking", Annotations: ann(`{"readOnlyHint":true}`)}, Result{Class: Write, Reason: "--write-tools glob get_*"}},
		{"read-tools beats readOnlyHint=false", ChainOptions{ReadTools: []string{"apply_*"}},
			Tool{Name: "apply_discount", Annotations: ann(`{"readOnlyHint":false}`)}, Result{Class: Read, Reason: "--read-tools glob apply_*"}},
		{"read-tools beats default write pattern", ChainOptions{ReadTools: []string{"update_status_view"}},
			Tool{Name: "update_status_view"}, Result{Class: Read, Reason: "--read-tools glob update_status_view"}},
		{"write-tools replaces default write patterns", ChainOptions{WriteTools: []string{"sync_*"}},
			Tool{Name: "create_booking"}, Result{Class: Unclassified, Reason: "no annotation, no pattern match"}},
		{"write-tools keeps read prefixes", ChainOptions{WriteTools: []string{"sync_*"}},
			Tool{Name: "get_booking"}, Result{Class: Read, Reason: "read prefix"}},
		{"write-tools keeps annotations", ChainOptions{WriteTools: []string{"sync_*"}},
			Tool{Name: "apply_discount", Annotations: ann(`{"destructiveHint":true}`)}, Result{Class: Write, Reason: "annotation destructiveHint=true"}},
		{"globs are case-sensitive", ChainOptions{WriteTools: []string{"SYNC_*"}},
			Tool{Name: "sync_ledger"}, Result{Class: Unclassified, Reason: "no annotation, no pattern match"}},

		// Plugins.
		{"plugin decides after flags", ChainOptions{Plugins: []Classifier{pluginWrite}},
			Tool{Name: "get_ledger", Annotations: ann(`{"readOnlyHint":true}`)}, Result{Class: Write, Reason: "plugin test: ledger writes"}},
		{"flags beat plugin", ChainOptions{ReadTools: []string{"get_*"}, Plugins: []Classifier{pluginWrite}},
			Tool{Name: "get_ledger"}, Result{Class: Read, Reason: "--read-tools glob get_*"}},
		{"plugin without opinion passes on", ChainOptions{Plugins: []Classifier{pluginNoOpinion}},
			Tool{Name: "get_ledger"}, Result{Class: Read, Reason: "read prefix"}},
		{"first plugin with an opinion wins", ChainOptions{Plugins: []Classifier{pluginNoOpinion,
			&stub{r: Result{Class: Read, Reason: "plugin a"}, ok: true}, &stub{r: Result{Class: Write, Reason: "plugin b"}, ok: true}}},
			Tool{Name: "x"}, Result{Class: Read, Reason: "plugin a"}},
		{"plugin may force unclassified", ChainOptions{Plugins: []Classifier{&stub{r: Result{Class: Unclassified, Reason: "plugin: unsure"}, ok: true}}},
			Tool{Name: "create_booking"}, Result{Class: Unclassified, Reason: "plugin: unsure"}},
		{"plugin with invalid class has no opinion", ChainOptions{Plugins: []Classifier{&stub{r: Result{Class: "unknown", Reason: "garbage"}, ok: true}}},
			Tool{Name: "create_booking"}, Result{Class: Write, Reason: "default write pattern"}},
		{"plugin with made-up class has no opinion", ChainOptions{Plugins: []Classifier{&stub{r: Result{Class: "WRITE", Reason: "garbage"}, ok: true}}},
			Tool{Name: "sync_ledger"}, Result{Class: Unclassified, Reason: "no annotation, no pattern match"}},
		{"plugin without reason gets one", ChainOptions{Plugins: []Classifier{&stub{r: Result{Class: Read}, ok: true}}},
			Tool{Name: "x"}, Result{Class: Read, Reason: "classifier stage 2 gave no reason"}},
		{"panicking plugin has no opinion", ChainOptions{Plugins: []Classifier{panicker{}}},
			Tool{Name: "create_booking"}, Result{Class: Write, Reason: "default write pattern"}},

		// Annotations.
		{"readOnlyHint true is read", ChainOptions{},
			Tool{Name: "sync_ledger", Annotations: ann(`{"readOnlyHint":true}`)}, Result{Class: Read, Reason: "annotation readOnlyHint=true"}},
		{"readOnlyHint false is write", ChainOptions{},
			Tool{Name: "apply_discount", Annotations: ann(`{"readOnlyHint":false}`)}, Result{Class: Write, Reason: "annotation readOnlyHint=false"}},
		{"destructiveHint true is write", ChainOptions{},
			Tool{Name: "sync_ledger", Annotations: ann(`{"destructiveHint":true}`)}, Result{Class: Write, Reason: "annotation destructiveHint=true"}},
		{"readOnlyHint false with destructiveHint false is write", ChainOptions{},
			Tool{Name: "sync_ledger", Annotations: ann(`{"readOnlyHint":false,"destructiveHint":false}`)}, Result{Class: Write, Reason: "annotation readOnlyHint=false"}},
		{"readOnlyHint true with destructiveHint false is read", ChainOptions{},
			Tool{Name: "sync_ledger", Annotations: ann(`{"readOnlyHint":true,"destructiveHint":false}`)}, Result{Class: Read, Reason: "annotation readOnlyHint=true"}},
		{"contradicting hints are write", ChainOptions{},
			Tool{Name: "get_ledger", Annotations: ann(`{"readOnlyHint":true,"destructiveHint":true}`)},
			Result{Class: Write, Reason: "annotations readOnlyHint=true and destructiveHint=true conflict, taken as write"}},
		{"annotation beats read prefix", ChainOptions{},
			Tool{Name: "get_or_create_booking", Annotations: ann(`{"readOnlyHint":false}`)}, Result{Class: Write, Reason: "annotation readOnlyHint=false"}},
		{"annotation beats default write pattern", ChainOptions{},
			Tool{Name: "update_status_view", Annotations: ann(`{"readOnlyHint":true}`)}, Result{Class: Read, Reason: "annotation readOnlyHint=true"}},
		{"destructiveHint false alone has no opinion", ChainOptions{},
			Tool{Name: "create_booking", Annotations: ann(`{"destructiveHint":false}`)}, Result{Class: Write, Reason: "default write pattern"}},
		{"destructiveHint false alone, no pattern: unclassified and said so", ChainOptions{},
			Tool{Name: "sync_ledger", Annotations: ann(`{"destructiveHint":false}`)},
			Result{Class: Unclassified, Reason: "only annotation destructiveHint=false, no pattern match"}},
		{"absent annotations are not false", ChainOptions{},
			Tool{Name: "sync_ledger"}, Result{Class: Unclassified, Reason: "no annotation, no pattern match"}},
		{"empty annotations object is not false", ChainOptions{},
			Tool{Name: "sync_ledger", Annotations: ann(`{}`)}, Result{Class: Unclassified, Reason: "no annotation, no pattern match"}},
		{"null annotations are absent", ChainOptions{},
			Tool{Name: "sync_ledger", Annotations: ann(`null`)}, Result{Class: Unclassified, Reason: "no annotation, no pattern match"}},
		{"null readOnlyHint is absent", ChainOptions{},
			Tool{Name: "sync_ledger", Annotations: ann(`{"readOnlyHint":null}`)}, Result{Class: Unclassified, Reason: "no annotation, no pattern match"}},
		{"string readOnlyHint is ignored", ChainOptions{},
			Tool{Name: "sync_ledger", Annotations: ann(`{"readOnlyHint":"false"}`)}, Result{Class: Unclassified, Reason: "no annotation, no pattern match"}},
		{"hint names are case-sensitive", ChainOptions{},
			Tool{Name: "sync_ledger", Annotations: ann(`{"readonlyhint":false}`)}, Result{Class: Unclassified, Reason: "no annotation, no pattern match"}},
		{"idempotentHint is not a class", ChainOptions{},
			Tool{Name: "sync_ledger", Annotations: ann(`{"idempotentHint":true}`)}, Result{Class: Unclassified, Reason: "no annotation, no pattern match"}},
		{"invalid annotations are absent", ChainOptions{},
			Tool{Name: "get_ledger", Annotations: ann(`{"readOnlyHint":`)}, Result{Class: Read, Reason: "read prefix"}},
		{"annotations with other fields still count", ChainOptions{},
			Tool{Name: "sync_ledger", Annotations: ann(`{"title":"Sync","readOnlyHint":true}`)}, Result{Class: Read, Reason: "annotation readOnlyHint=true"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NewChain(tt.opts).Classify(tt.tool)
			if got != tt.want {
				t.Errorf("Classify(%s) = %+v, want %+v", tt.tool.Name, got, tt.want)
			}
		})
	}
}

// TestNamePatterns has one case per name rule with the default chain.
func TestNamePatterns(t *testing.T) {
	write := Result{Class: Write, Reason: "default write pattern"}
	read := Result{Class: Read, Reason: "read prefix"}
	none := Result{Class: Unclassified, Reason: "no annotation, no pattern match"}
	type nameCase struct {
		name, tool string
		want       Result
	}
	tests := []nameCase{
		{"default write pattern snake_case", "create_booking", write},
		{"default write pattern camelCase", "createAppointment", write},
		{"default write pattern camelCase book", "bookRoom", write},
		{"write star covers writeFile", "writeFile", write},
		{"write star covers write_file", "write_file", write},
		{"write star covers bare write", "write", write},
		{"write star covers any suffix", "writer", write},
		{"bare write verb is not a write", "create", none},
		{"bare add is not a write (arithmetic tools)", "add", none},
		{"write verb needs a separator", "createx", none},
		{"write verb prefix of another word", "addendum_get", none},
		{"capitalised write verb with snake_case", "Create_booking", write},
		{"upper-case write verb is not matched", "CREATE_BOOKING", none},
		{"kebab-case write", "create-booking", write},
		{"PascalCase write", "CreateBooking", write},
		{"namespaced double underscore", "crm__create_lead", write},
		{"namespaced dot camelCase", "crm.createLead", write},
		{"namespaced slash kebab-case", "billing/charge-card", write},
		{"namespaced colon", "crm:create_lead", write},
		{"last segment decides", "create_x__list_y", read},
		{"bare write verb in a namespace is not a write", "bookings.create", none},
		{"bare read verb in a namespace is a read", "bookings.list", read},
		{"PascalCase verb needs a boundary", "Address", none},
		{"Add with a boundary", "AddItem", write},
		{"bare capitalised write verb", "Add", none},
		{"bare capitalised read verb", "List", read},
		{"PascalCase read", "GetBooking", read},
		{"kebab-case read", "get-booking", read},
		{"Getaway is not a read", "Getaway", none},
		{"a.b.c", "a.b.c", none},
		{"trailing separators are skipped", "crm.get_booking/", read},
		{"only separators", "./:__", none},
		{"empty segments are skipped", "crm..get", read},
		{"three underscores separate", "crm___get_x", read},
		{"single underscore is no separator", "crm_create_lead", none},
		{"digit is no boundary", "crm.add2", none},
		{"read prefix snake_case", "get_booking", read},
		{"read prefix camelCase", "getBooking", read},
		{"bare read verb is a read", "list", read},
		{"bare read verb search", "search", read},
		{"read verb needs a separator", "getaway", none},
		{"read verb digit is not a separator", "get2", none},
		{"lookup camelCase", "lookupCustomer", read},
		{"count snake_case", "count_rooms", read},
		{"read_graph", "read_graph", read},
		{"write pattern wins over a read word later", "create_view", write},
		{"read prefix wins over a write word later", "get_or_create_booking", read},
		{"misfire: check_in_guest is a write read as read", "check_in_guest", read},
		{"misfire: update_status_view is a read read as write", "update_status_view", write},
		{"no pattern match", "sync_ledger", none},
		{"empty name", "", none},
	}
	for _, v := range DefaultWritePatterns() {
		if v == "write*" {
			continue
		}
		verb := v[:len(v)-2]
		tests = append(tests,
			nameCase{"default write pattern " + v, verb + "_x", write},
			nameCase{"default write pattern " + v + " camelCase", verb + "X", write})
	}
	for _, v := range ReadPrefixes() {
		tests = append(tests,
			nameCase{"read prefix " + v, v + "_x", read},
			nameCase{"read prefix " + v + " camelCase", v + "X", read})
	}
	c := NewChain(ChainOptions{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.Classify(Tool{Name: tt.tool}); got != tt.want {
				t.Errorf("Classify(%q) = %+v, want %+v", tt.tool, got, tt.want)
			}
		})
	}
}

func TestDefaultWritePatternsMatchSpec(t *testing.T) {
	want := "[write* create_* send_* submit_* post_* update_* insert_* book_* pay_* charge_* cancel_* " +
		"delete_* confirm_* place_* add_* register_* schedule_* transfer_* refund_* reserve_* issue_* " +
		"remove_* withdraw_* deposit_* purchase_* approve_*]"
	if got := fmt.Sprint(DefaultWritePatterns()); got != want {
		t.Errorf("DefaultWritePatterns() = %s\nwant (behaviour §2.2)   %s", got, want)
	}
	wantRead := "[get list read search find fetch query check lookup describe show view count]"
	if got := fmt.Sprint(ReadPrefixes()); got != wantRead {
		t.Errorf("ReadPrefixes() = %s, want %s", got, wantRead)
	}
}

func TestChainCachesPerDefinition(t *testing.T) {
	p := &stub{r: Result{Class: Read, Reason: "plugin"}, ok: true}
	c := NewChain(ChainOptions{Plugins: []Classifier{p}})
	tool := Tool{Name: "x", Description: "d", Annotations: ann(`{}`), InputSchema: ann(`{"type":"object"}`)}
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() { c.Classify(tool) })
	}
	wg.Wait()
	if n := p.calls.Load(); n != 1 {
		t.Fatalf("plugin called %d times for one definition, want 1", n)
	}
	for _, changed := range []Tool{
		{Name: "y", Description: "d", Annotations: ann(`{}`), InputSchema: ann(`{"type":"object"}`)},
		{Name: "x", Description: "e", Annotations: ann(`{}`), InputSchema: ann(`{"type":"object"}`)},
		{Name: "x", Description: "d", Annotations: ann(`{"a":1}`), InputSchema: ann(`{"type":"object"}`)},
		{Name: "x", Description: "d", Annotations: ann(`{}`), InputSchema: ann(`{"type":"array"}`)},
		// Length prefixes: moving bytes between fields is another definition.
		{Name: "xd", Description: "", Annotations: ann(`{}`), InputSchema: ann(`{"type":"object"}`)},
	} {
		before := p.calls.Load()
		c.Classify(changed)
		if p.calls.Load() != before+1 {
			t.Errorf("definition %+v was served from the cache of another definition", changed)
		}
	}
}

func TestNotListed(t *testing.T) {
	if got := NotListed(); got.Class != Unknown {
		t.Errorf("NotListed().Class = %q, want unknown", got.Class)
	}
}
