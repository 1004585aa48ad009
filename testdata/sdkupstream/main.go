// Command sdkupstream is an MCP server built with the go-sdk, used by the
// end-to-end tests to check the proxy against the SDK's own session rules
// (the proxy lists tools after initialize and before the agent's
// notifications/initialized). It serves on stdio.
//
// With --elicit FILE it also serves create_reservation, a write that asks
// the user to confirm (MCP 2026-07-28 multi-round-trip: the first call is
// answered input_required, the client's follow-up carries the answer) and
// appends one line to FILE for every reservation it really makes: the
// ground truth of the end-to-end tests.
package main

import (
	"context"
	"fmt"
	"os"
	"sync"

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
	if len(os.Args) == 3 && os.Args[1] == "--elicit" {
		addReservation(server, os.Args[2])
	}
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintf(os.Stderr, "sdkupstream: %v\n", err)
		os.Exit(1)
	}
}

// addReservation adds create_reservation, which asks for confirmation and
// logs each reservation it makes to path.
func addReservation(server *mcp.Server, path string) {
	var mu sync.Mutex
	mcp.AddTool(server, &mcp.Tool{Name: "create_reservation", Description: "Creates a reservation after the user confirms."},
		func(ctx context.Context, req *mcp.CallToolRequest, a bookingArgs) (*mcp.CallToolResult, bookingOut, error) {
			resp, ok := req.Params.InputResponses["confirm"].(*mcp.ElicitResult)
			if !ok {
				return &mcp.CallToolResult{
					InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{Message: "Reserve room " + a.Room + "?"}},
					RequestState:  "confirm-" + a.Room,
				}, bookingOut{}, nil
			}
			if resp.Action != "accept" {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "the user declined"}}}, bookingOut{}, nil
			}
			mu.Lock()
			defer mu.Unlock()
			f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return nil, bookingOut{}, err
			}
			defer f.Close()
			if _, err := fmt.Fprintf(f, "reserved %s\n", a.Room); err != nil {
				return nil, bookingOut{}, err
			}
			return nil, bookingOut{OK: true, Room: a.Room}, nil
		})
}
