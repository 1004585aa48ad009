package junit

import "testing"

// TestEncode: Add counts a suite's cases into it and into the totals; an
// unset errors or time attribute is not written, a set one is.
func TestEncode(t *testing.T) {
	d := Suites{Name: "n"}
	d.Add(Suite{Name: "s", Time: Seconds(1.5), Cases: []Case{
		{Name: "a", ClassName: "c", Failure: &Message{Message: "m", Type: "FAIL", Text: "x"}},
		{Name: "b", ClassName: "c", Time: Seconds(0), Skipped: &Message{Message: "why"}},
		{Name: "c", ClassName: "c", SystemOut: "dir"},
	}})
	d.Add(Suite{Name: "e", Errors: new(int)})
	want := `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="n" tests="3" failures="1" skipped="1">
  <testsuite name="s" tests="3" failures="1" skipped="1" time="1.500">
    <testcase name="a" classname="c">
      <failure message="m" type="FAIL">x</failure>
    </testcase>
    <testcase name="b" classname="c" time="0.000">
      <skipped message="why"></skipped>
    </testcase>
    <testcase name="c" classname="c">
      <system-out>dir</system-out>
    </testcase>
  </testsuite>
  <testsuite name="e" tests="0" failures="0" errors="0" skipped="0"></testsuite>
</testsuites>
`
	if got := string(Encode(d)); got != want {
		t.Errorf("Encode =\n%s\nwant\n%s", got, want)
	}
}
