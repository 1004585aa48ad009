package classify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// oldNames is the name-pattern stage as it was before behaviour §2.2 (snake_case
// and camelCase only, whole name), kept as the oracle of FuzzNamesAgainstOld.
func oldNames(name string) (Class, bool) {
	for _, v := range defaultWriteVerbs {
		if v == "write" && strings.HasPrefix(name, v) || oldVerbPrefixed(name, v) {
			return Write, true
		}
	}
	for _, v := range readVerbs {
		if name == v || oldVerbPrefixed(name, v) {
			return Read, true
		}
	}
	return "", false
}

func oldVerbPrefixed(name, verb string) bool {
	if len(name) <= len(verb) || !strings.HasPrefix(name, verb) {
		return false
	}
	c := name[len(verb)]
	return c == '_' || 'A' <= c && c <= 'Z'
}

// changedMisfire is the one rule by which a name the old patterns
// classified may now be classified differently (docs/proxy.md "Changed
// misfires"): it contains a namespace separator, and the last segment now
// decides.
func changedMisfire(name string) bool {
	return strings.ContainsAny(name, "./:") || strings.Contains(name, "__")
}

func classOfName(name string) Class {
	r, ok := NewNames(true).Classify(Tool{Name: name})
	if !ok {
		return Unclassified
	}
	return r.Class
}

var nameSeeds = []string{
	"create_booking", "createBooking", "CreateBooking", "create-booking",
	"crm__create_lead", "crm.createLead", "billing/charge-card", "crm:get_lead",
	"create_x__list_y", "add", "Add", "Address", "AddItem", "get-booking",
	"GetBooking", "Getaway", "getaway", "a.b.c", "get.", "crm.", "crm..get",
	"__", "___get", "_get", "x___", "write", "writer", "Writer", "WriteFile",
	"write.x", "check_in_guest", "update_status_view", "get_or_create_booking",
	"", ".", "get__", "list", "List", "LIST", "CREATE_BOOKING", "get2",
}

// FuzzNamesAgainstOld checks that every name the old patterns classified
// keeps its class, unless the changed-misfire rule the README documents
// covers it, and that a namespace prefix never changes a name's class.
func FuzzNamesAgainstOld(f *testing.F) {
	for _, s := range nameSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		got := classOfName(name)
		if old, ok := oldNames(name); ok && got != old && !changedMisfire(name) {
			t.Errorf("%q: old patterns %s, new %s, and no changed-misfire rule covers it", name, old, got)
		}
		for _, sep := range []string{"__", ".", "/", ":"} {
			if sep == "__" && strings.HasPrefix(name, "_") {
				continue // crm___x: the run of underscores takes the name's own
			}
			if ns := classOfName("crm" + sep + name); ns != got {
				t.Errorf("%q is %s but %q is %s", name, got, "crm"+sep+name, ns)
			}
		}
	})
}

func TestNamesLongNames(t *testing.T) {
	// Linear scans: these finish at once, whatever the separators.
	for _, name := range []string{
		strings.Repeat("_", 1<<20),
		strings.Repeat("a_", 1<<19) + "get",
		strings.Repeat("__", 1<<19) + "create_x",
		"get_x" + strings.Repeat(".", 1<<20),
	} {
		classOfName(name)
	}
	if got := classOfName("get_x" + strings.Repeat(".", 1<<20)); got != Read {
		t.Errorf("trailing separators: %s, want read", got)
	}
}

// readmeEntry is one bullet of a marked README list:
// "- `name` … → class …" (known misfires) or
// "- `name`: old → new …" (changed misfires).
type readmeEntry struct {
	name     string
	old, now Class
}

// readmeList returns the bullets between the comments
// "<!-- marker: begin -->" and "<!-- marker: end -->".
func readmeList(t *testing.T, marker string) []readmeEntry {
	t.Helper()
	// The lists moved with the proxy reference from the README to
	// docs/proxy.md.
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "proxy.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	_, rest, ok := strings.Cut(text, "<!-- "+marker+": begin -->")
	if !ok {
		t.Fatalf("docs/proxy.md has no %q list", marker)
	}
	block, _, ok := strings.Cut(rest, "<!-- "+marker+": end -->")
	if !ok {
		t.Fatalf("docs/proxy.md's %q list has no end", marker)
	}
	var out []readmeEntry
	for _, line := range strings.Split(block, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "- `") {
			continue
		}
		name, after, ok := strings.Cut(line[3:], "`")
		if !ok {
			t.Fatalf("README %s: bad line %q", marker, line)
		}
		e := readmeEntry{name: name}
		classes := classWords(after)
		switch len(classes) {
		case 1:
			e.now = classes[0]
		case 2:
			e.old, e.now = classes[0], classes[1]
		default:
			t.Fatalf("README %s: line %q names %d classes, want one or two (with →)", marker, line, len(classes))
		}
		out = append(out, e)
	}
	if len(out) == 0 {
		t.Fatalf("README's %q list is empty", marker)
	}
	return out
}

// classWords returns the classes written as **read**, **write** or
// **unclassified** in s, in order.
func classWords(s string) []Class {
	var out []Class
	for {
		_, rest, ok := strings.Cut(s, "**")
		if !ok {
			return out
		}
		word, after, ok := strings.Cut(rest, "**")
		if !ok {
			return out
		}
		switch c := Class(word); c {
		case Read, Write, Unclassified:
			out = append(out, c)
		}
		s = after
	}
}

// TestREADMEKnownMisfires keeps docs/proxy.md's list of known misfires true:
// each listed name is classified as the README says by the default chain.
func TestREADMEKnownMisfires(t *testing.T) {
	c := NewChain(ChainOptions{})
	for _, e := range readmeList(t, "known-misfires") {
		if got := c.Classify(Tool{Name: e.name}).Class; got != e.now {
			t.Errorf("README says %q is classified %s, the classifier says %s", e.name, e.now, got)
		}
	}
}

// TestREADMEChangedMisfires keeps docs/proxy.md's list of changed misfires
// true: the old patterns gave the first class, the new ones give the
// second, and the documented rule covers the name.
func TestREADMEChangedMisfires(t *testing.T) {
	for _, e := range readmeList(t, "changed-misfires") {
		old, ok := oldNames(e.name)
		if !ok {
			old = Unclassified
		}
		if old != e.old || classOfName(e.name) != e.now {
			t.Errorf("README says %q changed from %s to %s; old patterns %s, new %s", e.name, e.old, e.now, old, classOfName(e.name))
		}
		if !changedMisfire(e.name) {
			t.Errorf("%q: no changed-misfire rule covers it", e.name)
		}
	}
}
