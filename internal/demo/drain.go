package demo

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultDrainGrace bounds how long DrainingTransport waits for answers
// after the client closed its input.
const DefaultDrainGrace = 5 * time.Second

// DrainingTransport wraps an MCP transport so that, when the client closes
// its input, the server's connection reports the end only after every
// request already read has been answered (at most Grace later). Without it a
// client that writes its requests and closes stdin at once — a shell pipe —
// loses the answers still being computed.
type DrainingTransport struct {
	Transport mcp.Transport
	// Grace bounds the wait; zero is DefaultDrainGrace.
	Grace time.Duration
}

// Connect implements mcp.Transport.
func (t *DrainingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	grace := t.Grace
	if grace <= 0 {
		grace = DefaultDrainGrace
	}
	return &drainConn{Connection: c, grace: grace}, nil
}

// drainConn counts the client's requests read and the responses written.
type drainConn struct {
	mcp.Connection
	grace time.Duration

	mu   sync.Mutex
	open int
	idle chan struct{} // closed when open drops to zero; nil while zero
}

// Read returns the next message; at the end of input it first waits until
// every request read so far has been answered.
func (c *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		c.mu.Lock()
		idle := c.idle
		c.mu.Unlock()
		if idle != nil {
			timer := time.NewTimer(c.grace)
			defer timer.Stop()
			select {
			case <-idle:
			case <-timer.C:
			case <-ctx.Done():
			}
		}
		return nil, err
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.mu.Lock()
		c.open++
		if c.open == 1 {
			c.idle = make(chan struct{})
		}
		c.mu.Unlock()
	}
	return msg, nil
}

// Write writes msg; a response ends one open request.
func (c *drainConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if _, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		if c.open > 0 {
			c.open--
			if c.open == 0 {
				close(c.idle)
				c.idle = nil
			}
		}
		c.mu.Unlock()
	}
	return err
}
