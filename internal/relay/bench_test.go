package relay

import (
	"bufio"
	"context"
	"io"
	"os"
	"strconv"
	"testing"

	"github.com/cuonztech/agent-harness/internal/relay/internal/fdio"
	"github.com/cuonztech/agent-harness/internal/wire"
)

// pipeConn is an in-process upstream connection over two OS pipes.
type pipeConn struct {
	r   *os.File // the relay reads the upstream's output here
	w   *os.File // the relay writes to the upstream here
	try func([]byte) (int, error)
}

func (c pipeConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// TryWrite lets the relay write to the pipe without a goroutine switch, as
// it does to a real upstream's.
func (c pipeConn) TryWrite(p []byte) (int, error) { return c.try(p) }
func (c pipeConn) Write(p []byte) (int, error)    { return c.w.Write(p) }
func (c pipeConn) Close() error {
	c.w.Close()
	return c.r.Close()
}

// BenchmarkRelayCall is the relay's own cost per small tools/call round
// trip (PassThrough pipeline): agent and upstream are goroutines of this
// process on OS pipes, so the figure includes the pipes' system calls and
// goroutine switches but no process switches. See cmd/agent-harness's
// BenchmarkProxyAddedLatency for the real processes.
func BenchmarkRelayCall(b *testing.B) {
	agentR, relayStdout, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	relayStdin, agentW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	upIn, relayToUp, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	upToRelay, upOut, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	// The upstream: answers every request with a small result.
	go func() {
		br := bufio.NewReader(upIn)
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				upOut.Close()
				return
			}
			env, err := wire.ParseEnvelope(line)
			if err != nil || env.ID == nil {
				continue
			}
			head := append(append([]byte(`{"jsonrpc":"2.0","id":`), env.ID...), `,"result":`...)
			var out []byte
			switch env.Method {
			case "initialize":
				out = append(head, `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"b","version":"1"}}}`+"\n"...)
			case "tools/list":
				out = append(head, `{"tools":[{"name":"get_booking","inputSchema":{"type":"object"}}]}}`+"\n"...)
			default:
				out = append(head, `{"content":[{"type":"text","text":"{\"id\":\"b1\",\"room\":\"r1\"}"}],"structuredContent":{"id":"b1","room":"r1"}}}`+"\n"...)
			}
			if _, err := upOut.Write(out); err != nil {
				return
			}
		}
	}()
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), Options{
			Upstream: IOUpstream{pipeConn{r: upToRelay, w: relayToUp, try: fdio.TryWriter(relayToUp)}},
			Stdin:    relayStdin,
			Stdout:   relayStdout,
		})
		relayStdout.Close()
	}()
	br := bufio.NewReader(agentR)
	roundTrip := func(req string) {
		if _, err := io.WriteString(agentW, req); err != nil {
			b.Fatal(err)
		}
		if _, err := br.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
	roundTrip(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}` + "\n")
	id := 0
	req := func() string {
		id++
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"get_booking","arguments":{"id":"b1"}}}` + "\n"
	}
	for range 200 {
		roundTrip(req())
	}
	b.ReportAllocs()
	for b.Loop() {
		roundTrip(req())
	}
	agentW.Close()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}
