package demo

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestDrainAnswersRequestsAfterInputEnds writes requests and closes the
// input at once, like a shell pipe; every request still gets its answer.
func TestDrainAnswersRequestsAfterInputEnds(t *testing.T) {
	var in strings.Builder
	fmt.Fprintln(&in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`)
	fmt.Fprintln(&in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Fprintln(&in, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"start_session","arguments":{"scenario":"F4"}}}`)
	for i := 3; i < 13; i++ {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"list_scenarios","arguments":{}}}`+"\n", i)
	}
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		srv := New(Options{Dir: t.TempDir()}).MCPServer()
		done <- srv.Run(t.Context(), &DrainingTransport{Transport: &mcp.IOTransport{
			Reader: io.NopCloser(strings.NewReader(in.String())), Writer: outW}})
		outW.Close()
	}()
	ids := map[int]bool{}
	sc := bufio.NewScanner(outR)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m struct {
			ID *int `json:"id"`
		}
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.ID != nil {
			ids[*m.ID] = true
		}
	}
	<-done
	for id := 1; id < 13; id++ {
		if !ids[id] {
			t.Errorf("no answer to request %d", id)
		}
	}
}
