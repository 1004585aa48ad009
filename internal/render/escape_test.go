package render

import (
	"bytes"
	"encoding/xml"
	"os"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/junit"
	"github.com/cuonztech/agent-harness/internal/report"
)

// TestRenderPeerTextEscaped (issue 17 item 9): `report FILE` of a FAIL
// report whose tool name carries a line break, HTML and a terminal escape
// renders no heading but its own and no raw control character, in
// Markdown and in JUnit XML (where the escape shows as \x1b, not as a
// replacement character).
func TestRenderPeerTextEscaped(t *testing.T) {
	data, err := os.ReadFile("../../testdata/reports/f1-naive.json")
	if err != nil {
		t.Fatal(err)
	}
	const tool = `create_booking\n# agent-harness report: PASS\n<script>x</script>\u001b[2J`
	data = bytes.ReplaceAll(data, []byte(`"create_booking"`), []byte(`"`+tool+`"`))
	f, err := report.ParseRun(data)
	if err != nil {
		t.Fatal(err)
	}
	if f.Report.Operations[0].Tool == "create_booking" {
		t.Fatal("the tool name was not replaced")
	}
	md := markdown(f)
	for i, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "# agent-harness report:") && i != 0 {
			t.Errorf("line %d is a report heading: %q", i+1, line)
		}
	}
	// In a code span HTML is shown as text; anywhere else it is escaped.
	inCode := strings.Count(md, "`create_booking\\n# agent-harness report: PASS\\n<script>x</script>\\x1b[2J`")
	if strings.Count(md, "<script>") != inCode || strings.ContainsAny(md, "\x1b") {
		t.Errorf("raw HTML or escape in the Markdown:\n%s", md)
	}
	x := JUnit(f)
	if err := xml.Unmarshal(x, new(junit.Suites)); err != nil {
		t.Fatalf("JUnit does not parse: %v", err)
	}
	if bytes.Contains(x, []byte("\x1b")) || bytes.Contains(x, []byte("\uFFFD")) || !bytes.Contains(x, []byte(`\x1b[2J`)) {
		t.Errorf("JUnit does not show the escape as \\x1b:\n%s", x)
	}
	if bytes.Contains(x, []byte("\n# agent-harness report: PASS")) {
		t.Errorf("JUnit has the tool's line break raw:\n%s", x)
	}
}
