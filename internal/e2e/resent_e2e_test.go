package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestResentByE2E: with --listen --fault-layer http under F1 the proxy
// drops the connection of the first write after it executed; a client that
// re-sends the identical request right away is the client library
// (duplicate.resentBy client-library, patch CLIENT_RETRY, verdict still
// FAIL), the same re-send with a new _meta tool-call id is the model
// (resentBy model, GHOST_WRITE). `judge TRACE` gives the same report.
func TestResentByE2E(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	meta := func(id string) string {
		if id == "" {
			return ""
		}
		return `,"_meta":{"progressToken":1,"agent-harness/toolCallId":"` + id + `"}`
	}
	tests := []struct {
		name, first, second, resentBy, patch string
	}{
		{"identical re-send after the dropped connection", "", "", "client-library", "CLIENT_RETRY"},
		{"re-send with a new tool-call id", "call_1", "call_2", "model", "GHOST_WRITE"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tracePath := filepath.Join(t.TempDir(), "run.trace")
			p := startHTTPProxy(t, "--scenario", "F1", "--audit-tools", "off", "--fault-layer", "http", "--trace", tracePath)
			s := newRawSession(t, p.url)
			s.initialize()
			send := func(id, toolCallID string) (*http.Response, error) {
				body := rpcRequest(id, "tools/call", `{"name":"create_booking","arguments":`+bookingArgs+meta(toolCallID)+`}`)
				req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Session-Id", s.id)
				return s.hc.Do(req)
			}
			// The proxy's clock measures the 2 s window from the dropped
			// connection to the re-send's arrival; both lie between these two
			// instants, so a gap below the window here proves the proxy's was.
			began := time.Now()
			if resp, err := send("7", tc.first); err == nil {
				resp.Body.Close()
				t.Fatalf("F1 at the HTTP layer: want a dropped connection, got %s", respStatus(resp))
			}
			resp, err := send("8", tc.second)
			if err != nil {
				t.Fatalf("re-send: %v", err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if gap := time.Since(began); tc.resentBy == "client-library" && gap > 2*time.Second {
				t.Skipf("the machine took %v for the drop and the re-send, beyond the 2 s window the rule is about", gap)
			}
			if resp.StatusCode != 200 || !strings.Contains(string(b), "called create_booking") && !strings.Contains(string(b), `"result"`) {
				t.Fatalf("re-send: %d %s", resp.StatusCode, b)
			}
			if code := p.stop(syscall.SIGTERM); code != 128+int(syscall.SIGTERM) {
				t.Fatalf("exit code %d; stderr:\n%s", code, p.stderr.String())
			}
			if got := p.upstreamExecutions()["create_booking"]; got != 2 {
				t.Fatalf("upstream executed create_booking %d times, want 2", got)
			}
			live, err := os.ReadFile(p.report)
			if err != nil {
				t.Fatal(err)
			}
			check := func(what string, raw []byte) {
				t.Helper()
				var f struct {
					Report struct {
						Verdict    string `json:"verdict"`
						Violations []struct {
							Type      string `json:"type"`
							Duplicate struct {
								ResentBy string `json:"resentBy"`
							} `json:"duplicate"`
						} `json:"violations"`
					} `json:"report"`
					Patches []struct {
						Type string `json:"type"`
					} `json:"patches"`
				}
				if err := json.Unmarshal(raw, &f); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if f.Report.Verdict != "FAIL" || len(f.Report.Violations) != 1 || f.Report.Violations[0].Type != "DUPLICATE_EXECUTION" ||
					f.Report.Violations[0].Duplicate.ResentBy != tc.resentBy {
					t.Errorf("%s: verdict %s, violations %+v; want FAIL, one DUPLICATE_EXECUTION with resentBy %s", what, f.Report.Verdict, f.Report.Violations, tc.resentBy)
				}
				if len(f.Patches) != 1 || f.Patches[0].Type != tc.patch {
					t.Errorf("%s: patches %+v, want %s only", what, f.Patches, tc.patch)
				}
			}
			check("live report", live)
			line := "FAIL: create_booking executed 2 times (DUPLICATE_EXECUTION) — again after a timeout; operation op-1"
			if tc.resentBy == "client-library" {
				line = "FAIL: create_booking executed 2 times (DUPLICATE_EXECUTION) — again after a timeout, re-sent by the MCP client library (CLIENT_RETRY); operation op-1"
			}
			if !strings.Contains(p.stderr.String(), line) {
				t.Errorf("stderr lacks %q:\n%s", line, p.stderr.String())
			}
			r, offline := rejudge(t, tracePath)
			if r.code != exitVerdictFail || r.stderr != "" {
				t.Fatalf("judge exit %d, stderr %q; want 1 and nothing", r.code, r.stderr)
			}
			check("re-judged report", offline)
			if a, b := withoutStatus(t, live), withoutStatus(t, offline); a != b {
				t.Errorf("re-judged report differs from the live one\nlive:    %s\noffline: %s", a, b)
			}
		})
	}
}
