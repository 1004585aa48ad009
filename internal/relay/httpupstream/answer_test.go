package httpupstream

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cuonztech/agent-harness/internal/relay"
	"github.com/cuonztech/agent-harness/internal/wire"
)

// TestRetryAfterAnswerIsJSON (red team 1, finding 3): a 429's Retry-After
// is peer text — obs-text (\xff), a tab, valid UTF-8 that Go's quoting
// writes as \U000e0001, JSON syntax — which the Conn's own not-executed
// answer quoted with strconv.Quote: Go escapes, not JSON, so the relay
// could not parse its own answer and forwarded it raw, secret mark
// included. The answer is valid JSON, names the value escaped, and ends in
// exactly the mark the pipeline checks and removes. Control characters
// net/http itself refuses in a header (\x01, \x7f): the connection
// failed before an answer, an unknown outcome, valid JSON too.
func TestRetryAfterAnswerIsJSON(t *testing.T) {
	for _, tc := range []struct{ ra, shown string }{
		{"\xff", `\xff`},
		{"3\U000E0001", `3\U000e0001`},
		{"5\t6", `5\t6`},
		{`4"}],"x":"`, `4\"}],\"x\":\"`},
		{"1\x01", ""},
		{"2\x7f", ""},
	} {
		t.Run(fmt.Sprintf("%q", tc.ra), func(t *testing.T) {
			srv, _ := callServer(t, func(_ int, _ string, w http.ResponseWriter, _ *http.Request) {
				w.Header()["Retry-After"] = []string{tc.ra}
				http.Error(w, "slow down", http.StatusTooManyRequests)
			})
			m := roundTrip(t, Options{URL: srv.URL + "/mcp"}, callMsg, 10*time.Second)
			if !json.Valid([]byte(m)) || !utf8.ValidString(m) {
				t.Fatalf("the Conn's own answer is not JSON: %s", m)
			}
			var got struct {
				Result struct {
					Content []struct{ Text string }
				}
			}
			if err := json.Unmarshal([]byte(m), &got); err != nil || len(got.Result.Content) != 1 {
				t.Fatalf("answer %s: %v", m, err)
			}
			text := got.Result.Content[0].Text
			if tc.shown == "" {
				if !strings.Contains(text, "failed before an answer") || !strings.HasSuffix(m, `"_meta":{"agent-harness/outcome":"unknown"}}}`) {
					t.Errorf("answer %s", m)
				}
				return
			}
			if want := "(Retry-After: " + tc.shown + ")"; !strings.Contains(text, want) {
				t.Errorf("text %q lacks %q", text, want)
			}
			mark := `,"_meta":{"` + relay.OutcomeMetaKey + `":"` + relay.NotExecutedMark + `"}}}`
			if !strings.HasSuffix(m, mark) {
				t.Errorf("answer does not end in the not-executed mark: %s", m)
			}
		})
	}
}

// TestPeerTextCutAtCharacter: peer text in the Conn's own answer (here a
// 429's Retry-After) is cut to 200 bytes where a character starts — a
// character on the cut is left out whole, never split into bytes that
// would show as \xc3 — and marked "…"; a value that fits is kept.
func TestPeerTextCutAtCharacter(t *testing.T) {
	d := strings.Repeat("1", 198)
	for _, tc := range []struct{ name, ra, shown string }{
		{"two-byte character on the cut", d + "1" + "é" + "99", d + "1" + "…"},
		{"three-byte character on the cut", d + "€" + "99", d + "…"},
		{"character just before the cut", d + "é" + "99", d + "é" + "…"},
		{"fits", d + "é", d + "é"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := callServer(t, func(_ int, _ string, w http.ResponseWriter, _ *http.Request) {
				w.Header()["Retry-After"] = []string{tc.ra}
				http.Error(w, "slow down", http.StatusTooManyRequests)
			})
			m := roundTrip(t, Options{URL: srv.URL + "/mcp"}, callMsg, 10*time.Second)
			var got struct {
				Result struct {
					Content []struct{ Text string }
				}
			}
			if err := json.Unmarshal([]byte(m), &got); err != nil || len(got.Result.Content) != 1 {
				t.Fatalf("answer %s: %v", m, err)
			}
			if text, want := got.Result.Content[0].Text, "(Retry-After: "+tc.shown+")"; !strings.Contains(text, want) {
				t.Errorf("text %q lacks %q", text, want)
			}
		})
	}
}

// TestOwnAnswerNeverRaw (finding 3): should the Conn ever make an answer
// the relay cannot parse, it is replaced by a fixed answer of unknown
// outcome without peer text and without the not-executed mark (whose
// secret must never leave the process), and a WARNING is logged.
func TestOwnAnswerNeverRaw(t *testing.T) {
	makeAnswer = func(env wire.Envelope, notExec bool, text, _ string) []byte {
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"\x"}],"_meta":{"k":%q}}}`, env.ID, relay.NotExecutedMark)
	}
	defer func() { makeAnswer = ownAnswer }()
	var logs []string
	srv, _ := callServer(t, func(_ int, _ string, w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "slow down", http.StatusTooManyRequests)
	})
	m := roundTrip(t, Options{URL: srv.URL, Logf: func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }}, callMsg, 10*time.Second)
	want := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + textLost + `"}],"isError":true,"_meta":{"agent-harness/outcome":"unknown"}}}`
	if m != want {
		t.Errorf("answer %s\nwant   %s", m, want)
	}
	if len(logs) != 1 || !strings.Contains(logs[0], "could not encode its own answer") {
		t.Errorf("logs %q", logs)
	}
}

// FuzzOwnAnswer: whatever text (peer bytes) an answer carries, the line
// is one JSON-RPC response the relay parses, valid UTF-8, with the
// request's id, and a valid UTF-8 text reads back unchanged.
func FuzzOwnAnswer(f *testing.F) {
	f.Add("Retry-After: \xff", true)
	f.Add("\U000E0001\x00\u2028</script>", false)
	f.Add(`"}],"isError":false}`, true)
	f.Fuzz(func(t *testing.T, text string, notExec bool) {
		for _, method := range []string{"tools/call", "ping"} {
			env := wire.Envelope{ID: []byte(`"a\u0062"`), Method: method, HasMethod: true}
			b := ownAnswer(env, notExec, text, "2026-07-28")
			if !ownAnswerValid(b, env.ID) || !json.Valid(b) {
				t.Fatalf("%q: invalid answer %s", text, b)
			}
			var got struct {
				Result struct{ Content []struct{ Text string } }
				Error  struct{ Message string }
			}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			read := got.Error.Message
			if method == "tools/call" {
				read = got.Result.Content[0].Text
			}
			if utf8.ValidString(text) && read != text {
				t.Fatalf("text %q read back as %q", text, read)
			}
		}
	})
}
