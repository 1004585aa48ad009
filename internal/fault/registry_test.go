package fault

import (
	"slices"
	"testing"
)

// TestRegistry: the built-ins register themselves in the order every list
// of them shows (F1 … F5, then chaos), each under the name its fault
// reports, and only chaos is a mode.
func TestRegistry(t *testing.T) {
	if got, want := Names(), []string{"F1", "F2", "F3", "F4", "F5", "chaos"}; !slices.Equal(got, want) {
		t.Fatalf("Names() = %q, want %q", got, want)
	}
	if got, want := Scenarios(), []string{"F1", "F2", "F3", "F4", "F5"}; !slices.Equal(got, want) {
		t.Fatalf("Scenarios() = %q, want %q", got, want)
	}
	if got := ScenarioRange(); got != "F1–F5" {
		t.Errorf("ScenarioRange() = %q", got)
	}
	for _, b := range Builtins() {
		f, err := b.New(Options{})
		if err != nil {
			t.Fatalf("%s: %v", b.Name, err)
		}
		if f.Name() != b.Name {
			t.Errorf("%s builds a fault named %q", b.Name, f.Name())
		}
		if b.Mode != (b.Name == "chaos") {
			t.Errorf("%s: Mode %v", b.Name, b.Mode)
		}
	}
	for name, want := range map[string]bool{"F1": true, "f1": false, "chaos": false, "F6": false, "": false} {
		if got := IsScenario(name); got != want {
			t.Errorf("IsScenario(%q) = %v", name, got)
		}
	}
	if b, ok := Lookup("CHAOS"); !ok || b.Name != "chaos" {
		t.Errorf("Lookup(CHAOS) = %v, %v", b.Name, ok)
	}
	if got := RateLimitText(DefaultRetryAfter); got != mustLookup(t, "F2").Text {
		t.Errorf("F2's registered text %q is not its result's %q", mustLookup(t, "F2").Text, got)
	}
}

func mustLookup(t *testing.T, name string) Builtin {
	t.Helper()
	b, ok := Lookup(name)
	if !ok {
		t.Fatalf("no built-in %s", name)
	}
	return b
}
