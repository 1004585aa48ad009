package plugin

import (
	"fmt"
	"slices"
	"testing"
)

func TestFailures(t *testing.T) {
	var f Failures
	f.Report("a", "1")
	f.Report("b", "2")
	var got []string
	f.Attach(func(p, d string) { got = append(got, p+":"+d) })
	f.Report("a", "3")
	if want := []string{"a:1", "b:2", "a:3"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestFailuresCap(t *testing.T) {
	var f Failures
	for i := 0; i < maxQueued+5; i++ {
		f.Report("p", fmt.Sprint(i))
	}
	n := 0
	var last string
	f.Attach(func(_, d string) { n++; last = d })
	if n != maxQueued+1 || last != "more failures before the session started were not recorded" {
		t.Errorf("%d delivered, last %q", n, last)
	}
}
