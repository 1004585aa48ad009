// Command sdkupstream is an MCP server built with the go-sdk, used by the
// end-to-end tests to check the proxy against the SDK's own session rules
// (the proxy lists tools after initialize and before the agent's
// notifications/initialized). It serves on stdio.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type bookingArgs struct {
	Room           string `json:"room" jsonschema:"the room"`
	IdempotencyKey string `json:"idempotency_key,omitempty" jsonschema:"a key"`
}

type bookingOut struct {
	OK   bool   `json:"ok"`
	Room string `json:"room"`
}

func main() {
	server := mcp.NewServer(&mcp.Implementation{Name: "sdk-upstream", Version: "1.0.0"},
		&mcp.ServerOptions{Instructions: "go-sdk test upstream", PageSize: 2})
	mcp.AddTool(server, &mcp.Tool{Name: "create_booking", Description: "Creates a booking."},
		func(ctx context.Context, req *mcp.CallToolRequest, a bookingArgs) (*mcp.CallToolResult, bookingOut, error) {
			return nil, bookingOut{OK: true, Room: a.Room}, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "get_booking", Description: "Reads a booking.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, a bookingArgs) (*mcp.CallToolResult, bookingOut, error) {
			return nil, bookingOut{OK: true, Room: a.Room}, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "sync_ledger", Description: "Unclassifiable."},
		func(ctx context.Context, req *mcp.CallToolRequest, a map[string]any) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "synced"}}}, nil, nil
		})
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintf(os.Stderr, "sdkupstream: %v\n", err)
		os.Exit(1)
	}
}
