package httpupstream

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/mcpschema"
)

// TestOwnAnswersValidForRevision: the results that stand for an upstream
// HTTP error — not executed (a 429 before any tool ran) and unknown (a
// 500, a failed connection) — are valid CallToolResults of the request's
// revision (behaviour §3.3): a request carrying 2026-07-28 in its SEP-2575
// _meta gets resultType "complete", before the _meta the pipeline's
// not-executed proof reads; a request without one gets none.
func TestOwnAnswersValidForRevision(t *testing.T) {
	const stateless = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"create_booking","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}` + "\n"
	for _, status := range []int{http.StatusTooManyRequests, http.StatusInternalServerError} {
		for _, tc := range []struct{ rev, msg string }{{"2025-11-25", callMsg}, {"2026-07-28", stateless}} {
			srv, _ := callServer(t, func(_ int, _ string, w http.ResponseWriter, _ *http.Request) {
				http.Error(w, "no", status)
			})
			m := roundTrip(t, Options{URL: srv.URL + "/mcp"}, tc.msg, 10*time.Second)
			var env struct{ Result json.RawMessage }
			if err := json.Unmarshal([]byte(m), &env); err != nil || env.Result == nil {
				t.Fatalf("HTTP %d, %s: no result: %s", status, tc.rev, m)
			}
			if v := mcpschema.Check(tc.rev, "CallToolResult", env.Result); len(v) > 0 {
				t.Errorf("HTTP %d: not a valid CallToolResult of %s: %q\n%s", status, tc.rev, v, env.Result)
			}
			if has := strings.Contains(m, `"isError":true,"resultType":"complete","_meta":{`); has != (tc.rev == "2026-07-28") {
				t.Errorf("HTTP %d, %s: resultType before _meta %t: %s", status, tc.rev, has, m)
			}
		}
	}
}
