package httpupstream

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/relay"
)

// TestNotExecutedStatusWithResultBodyUnknown (red team 1, finding 4): the
// upstream executes the call and answers 429 or 400 whose body is the
// JSON-RPC result of that very call (a quota middleware that set the
// status after the handler ran). The status no longer proves no tool ran:
// the call gets the unknown-outcome answer (never the not-executed mark),
// whether the result comes as a JSON body, in a batch, or in an event
// stream (labelled or not). A body with only a JSON-RPC error for the
// call, or a response to another id, or text, leaves the status proof.
func TestNotExecutedStatusWithResultBodyUnknown(t *testing.T) {
	booked := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"booked"}]}}`
	failed := `{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"rate limited"}}`
	other := `{"jsonrpc":"2.0","id":8,"result":{}}`
	for _, tc := range []struct {
		name, ct, body string
		unknown        bool
	}{
		{"JSON result", "application/json", booked, true},
		{"JSON result, id 7.0", "application/json", strings.Replace(booked, `"id":7`, `"id":7.0`, 1), true},
		{"result in a batch", "application/json", "[" + other + "," + booked + "]", true},
		{"result in an event stream", "text/event-stream", "id: 1\ndata: " + booked + "\n\n", true},
		{"an unlabelled event stream", "text/plain", "data: " + booked + "\n\n", true},
		{"isError result", "application/json", strings.Replace(booked, `]}}`, `],"isError":true}}`, 1), true},
		{"JSON-RPC error", "application/json", failed, false},
		{"another id", "application/json", other, false},
		{"text", "text/plain", "Too Many Requests\n", false},
		{"empty", "", "", false},
	} {
		for _, status := range []int{http.StatusTooManyRequests, http.StatusBadRequest} {
			t.Run(fmt.Sprintf("%s/%d", tc.name, status), func(t *testing.T) {
				srv, _ := callServer(t, func(_ int, _ string, w http.ResponseWriter, _ *http.Request) {
					if tc.ct != "" {
						w.Header().Set("Content-Type", tc.ct)
					}
					w.WriteHeader(status)
					io.WriteString(w, tc.body)
				})
				var logs []string
				m := roundTrip(t, Options{URL: srv.URL, Logf: func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }}, callMsg, 10*time.Second)
				notExec := strings.HasSuffix(m, `"`+relay.NotExecutedMark+`"}}}`)
				if tc.unknown {
					if notExec || !strings.Contains(m, fmt.Sprintf("HTTP %d", status)) || !strings.Contains(m, "its body is the call's response") || !strings.HasSuffix(m, `"_meta":{"agent-harness/outcome":"unknown"}}}`) {
						t.Errorf("answer %s", m)
					}
					if len(logs) != 1 || !strings.HasPrefix(logs[0], fmt.Sprintf("WARNING: the upstream answered HTTP %d to a request (tools/call) but its body is the call's response", status)) {
						t.Errorf("logs %q", logs)
					}
					return
				}
				if !notExec || !strings.Contains(m, "did not reach a tool") || len(logs) != 0 {
					t.Errorf("answer %s, logs %q", m, logs)
				}
			})
		}
	}
}

// TestNotExecutedStatusBodyBrokenUnknown: a 429 whose body breaks off (a
// Content-Length it does not reach) cannot be checked for the call's
// result: unknown, not not-executed.
func TestNotExecutedStatusBodyBrokenUnknown(t *testing.T) {
	srv, _ := callServer(t, func(_ int, _ string, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "500")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"jsonrpc":"2.0","id":7,"res`)
	})
	m := roundTrip(t, Options{URL: srv.URL}, callMsg, 10*time.Second)
	if !strings.Contains(m, "its body broke off before agent-harness could check it") || !strings.HasSuffix(m, `"_meta":{"agent-harness/outcome":"unknown"}}}`) {
		t.Errorf("answer %s", m)
	}
}

// TestResponseIn: what counts as the call's response in a body.
func TestResponseIn(t *testing.T) {
	id := []byte("7")
	for msg, want := range map[string]bool{
		`{"jsonrpc":"2.0","id":7,"result":{}}`: true,
		` {"id":7} `:                           true,
		`{"id":7,"error":{"code":1,"message":"x"},"result":{}}`: true,
		`{"id":7,"error":{"code":1,"message":"x"}}`:             false,
		`{"id":"7","result":{}}`:                                false,
		`{"id":7,"method":"x"}`:                                 false,
		`[{"id":1,"result":{}},{"id":7,"result":{}}]`:           true,
		`[[{"id":7,"result":{}}]]`:                              false,
		`[{"id":7,"result":{}}`:                                 true,
		`{"id":7,"result":`:                                     false,
		`not json`:                                              false,
	} {
		if got := responseIn([]byte(msg), id); got != want {
			t.Errorf("%s: %v, want %v", msg, got, want)
		}
	}
}
