package fault

import (
	"encoding/json"
	"fmt"
	"time"
)

// The fixed texts of the injected answers (behaviour §3; documented in the README).
const (
	// TimeoutText is what the agent sees for an F1 ghost write.
	TimeoutText = "Error: the request timed out before the server answered (timeout after 30000 ms). The outcome is unknown."
	// TruncatedText is the F3 body: a JSON document cut after two bytes.
	TruncatedText = `{"`
	// ServerErrorText is the F5 and chaos body.
	ServerErrorText = "Error: HTTP 500 Internal Server Error."
	// rateLimitFormat is the F2 text; %d is retry_after in seconds.
	rateLimitFormat = "Error: HTTP 429 Too Many Requests: rate limit exceeded. Retry after %d seconds."
)

// Fault kinds as they appear in judge events (Action.Fault).
const (
	KindTimeout       = "timeout"
	KindRateLimit     = "rate_limit"
	KindTruncatedJSON = "truncated_json"
	KindServerError   = "server_error"
	KindChaos         = "chaos"
)

// toolResult is an MCP CallToolResult with one text content item.
type toolResult struct {
	Content           []textContent  `json:"content"`
	StructuredContent any            `json:"structuredContent,omitempty"`
	IsError           bool           `json:"isError"`
	Meta              map[string]any `json:"_meta,omitempty"`
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// rateLimited is the machine-readable part of the F2 answer.
type rateLimited struct {
	Error      string `json:"error"`
	Status     int    `json:"status"`
	RetryAfter int64  `json:"retry_after"`
}

// ErrorResult returns a CallToolResult with isError true and text as its
// only content item.
func ErrorResult(text string) json.RawMessage {
	return mustMarshal(toolResult{Content: []textContent{{Type: "text", Text: text}}, IsError: true})
}

// RateLimitResult returns the F2 answer for a retry_after of whole seconds:
// the text names the number, and structuredContent carries
// {"error":"rate_limited","status":429,"retry_after":N}.
func RateLimitResult(retryAfter time.Duration) json.RawMessage {
	secs := int64(retryAfter / time.Second)
	return mustMarshal(toolResult{
		Content:           []textContent{{Type: "text", Text: RateLimitText(retryAfter)}},
		StructuredContent: rateLimited{Error: "rate_limited", Status: 429, RetryAfter: secs},
		IsError:           true,
	})
}

// RateLimitMetaResult returns the F2 answer for a call whose result cannot
// carry structuredContent (the tool declares an outputSchema, or the
// protocol version predates structuredContent; behaviour §3.3): the same text,
// and retry_after in the result's _meta as {"agent-harness/retryAfter":N},
// which clients do not validate.
func RateLimitMetaResult(retryAfter time.Duration) json.RawMessage {
	secs := int64(retryAfter / time.Second)
	return mustMarshal(toolResult{
		Content: []textContent{{Type: "text", Text: RateLimitText(retryAfter)}},
		IsError: true,
		Meta:    map[string]any{MetaRetryAfter: secs},
	})
}

// RateLimitText is the F2 text for a retry_after of whole seconds.
func RateLimitText(retryAfter time.Duration) string {
	return fmt.Sprintf(rateLimitFormat, int64(retryAfter/time.Second))
}

func mustMarshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		// Only fixed, marshalable values reach this function.
		panic("fault: encoding an injected result: " + err.Error())
	}
	return b
}
