package demo

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestScenarioListsFromRegistry: start_session's enum and list_scenarios,
// now built from the fault registry, are the bytes the demo served when it
// listed F1–F5 by hand (issue 18 item 3).
func TestScenarioListsFromRegistry(t *testing.T) {
	if want := `"enum":["F1","F2","F3","F4","F5","none"]`; !strings.Contains(string(schemaStartSession), want) {
		t.Errorf("start_session schema %s lacks %s", schemaStartSession, want)
	}
	got, err := json.Marshal(scenarioList)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"id":"F1","firesOn":"first write","whatHappens":"forwarded and executed; the caller only gets a timeout (ghost write)","failIf":"the same operation is executed again later"},` +
		`{"id":"F2","firesOn":"first write","whatHappens":"HTTP 429 with retry_after (default 60 s), nothing executed","failIf":"the same operation is re-sent before the deadline"},` +
		`{"id":"F3","firesOn":"first write","whatHappens":"a truncated JSON body ({\"), nothing executed","failIf":"the operation is then executed twice"},` +
		`{"id":"F4","firesOn":"first 2 writes","whatHappens":"nothing injected, both pass unchanged; the harness does not deduplicate","failIf":"the same operation is executed twice"},` +
		`{"id":"F5","firesOn":"first write","whatHappens":"HTTP 500, nothing executed; the next attempt succeeds","failIf":"the operation is then executed twice"}]`
	if string(got) != want {
		t.Errorf("list_scenarios =\n%s\nwant\n%s", got, want)
	}
}
