// Command httpupstream is an MCP server speaking Streamable HTTP, built on
// the go-sdk's server, for the proxy's --upstream-url tests. It listens on
// a free loopback port, prints its endpoint URL as the first line on
// stdout, and counts executions of its write tool.
//
// Flags:
//
//	-counts-file F        rewrite F with {"create_booking": N} after each execution
//	-json                 answer POSTs with application/json instead of event streams
//	-status-calls CODE    answer every tools/call with HTTP CODE, without executing it
//	-status-after-exec CODE  execute create_booking, then answer HTTP CODE instead of the result
//	-expire-after N       after N POSTs that carry a session id, answer 404 (session expired)
//	-require-header H     refuse (401) requests without header "H" (Name: value)
//
// Tools: create_booking (a write; counted), get_booking (read-only),
// progress {"steps": N} (N progress notifications), ask (an elicitation to
// the client), log (a notifications/message before the answer).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type bookingArgs struct {
	Room           string `json:"room" jsonschema:"the room"`
	Date           string `json:"date,omitempty" jsonschema:"the date"`
	IdempotencyKey string `json:"idempotency_key,omitempty" jsonschema:"a key"`
}

type stepsArgs struct {
	Steps int `json:"steps" jsonschema:"number of steps"`
}

type messageArgs struct {
	Message string `json:"message" jsonschema:"a message"`
}

var (
	countsFile = flag.String("counts-file", "", "counts file")
	mu         sync.Mutex
	counts     = map[string]int{}
)

func count(tool string) {
	mu.Lock()
	defer mu.Unlock()
	counts[tool]++
	if *countsFile == "" {
		return
	}
	b, _ := json.Marshal(counts)
	tmp := *countsFile + ".tmp"
	if os.WriteFile(tmp, b, 0o644) == nil {
		_ = os.Rename(tmp, *countsFile)
	}
}

func main() {
	jsonResp := flag.Bool("json", false, "JSON answers")
	statusCalls := flag.Int("status-calls", 0, "HTTP status for every tools/call")
	statusAfter := flag.Int("status-after-exec", 0, "HTTP status after executing create_booking")
	expireAfter := flag.Int("expire-after", 0, "404 after N session POSTs")
	requireHeader := flag.String("require-header", "", "required header")
	flag.Parse()

	server := mcp.NewServer(&mcp.Implementation{Name: "http-upstream", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "create_booking", Description: "Creates a booking."},
		func(ctx context.Context, req *mcp.CallToolRequest, a bookingArgs) (*mcp.CallToolResult, any, error) {
			count("create_booking")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "booked " + a.Room}}}, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "get_booking", Description: "Reads a booking.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, a bookingArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "room " + a.Room}}}, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "progress", Description: "Reports progress."},
		func(ctx context.Context, req *mcp.CallToolRequest, a stepsArgs) (*mcp.CallToolResult, any, error) {
			tok := req.Params.GetProgressToken()
			for i := 1; i <= a.Steps && tok != nil; i++ {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: float64(a.Steps)})
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "ask", Description: "Asks the client."},
		func(ctx context.Context, req *mcp.CallToolRequest, a messageArgs) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: a.Message,
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"answer": map[string]any{"type": "string"}}}})
			if err != nil {
				return nil, nil, err
			}
			b, _ := json.Marshal(res.Content)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Action + " " + string(b)}}}, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "log", Description: "Logs a message."},
		func(ctx context.Context, req *mcp.CallToolRequest, a messageArgs) (*mcp.CallToolResult, any, error) {
			_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: a.Message})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "logged"}}}, nil, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{JSONResponse: *jsonResp})

	var sessionPosts atomic.Int64
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if *requireHeader != "" {
			name, value, _ := strings.Cut(*requireHeader, ":")
			if r.Header.Get(strings.TrimSpace(name)) != strings.TrimSpace(value) {
				http.Error(w, "Unauthorized", http.StatusUnauthorized)
				return
			}
		}
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if *expireAfter > 0 && r.Header.Get("Mcp-Session-Id") != "" && sessionPosts.Add(1) > int64(*expireAfter) {
				http.Error(w, "Not Found: session expired", http.StatusNotFound)
				return
			}
			var m struct {
				Method string `json:"method"`
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			_ = json.Unmarshal(body, &m)
			if m.Method == "tools/call" && *statusCalls != 0 {
				if *statusCalls == http.StatusTooManyRequests {
					w.Header().Set("Retry-After", "3")
				}
				http.Error(w, http.StatusText(*statusCalls), *statusCalls)
				return
			}
			if m.Method == "tools/call" && m.Params.Name == "create_booking" && *statusAfter != 0 {
				rec := &discard{header: http.Header{}}
				h.ServeHTTP(rec, r) // executes
				http.Error(w, http.StatusText(*statusAfter), *statusAfter)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	_ = http.Serve(ln, handler)
}

// discard is a ResponseWriter that drops the answer.
type discard struct{ header http.Header }

func (d *discard) Header() http.Header         { return d.header }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}
func (d *discard) Flush()                      {}
