package relay

import (
	"bufio"
	"io"
	"time"
)

// Conn is one side of a session as whole JSON-RPC messages: the transport
// seam of the relay. The stdio pipes are one implementation (built into
// Run: newline-delimited JSON-RPC on Options.Stdin/Stdout, or a
// CommandUpstream's or IOUpstream's stream); an HTTP transport is another
// (Options.Agent, ConnUpstream). Judging never sees the difference: the
// relay hands the same bytes to the same pipeline.
type Conn interface {
	// ReadMessage returns the next message of the peer, in order, with or
	// without a trailing newline; io.EOF at the end. The slice becomes the
	// relay's. Only one goroutine reads at a time.
	ReadMessage() ([]byte, error)
	// WriteMessage sends one whole message to the peer. msg ends with a
	// newline; it must not be retained after WriteMessage returns. Calls
	// are serialised; WriteMessage should not wait for the peer to read
	// (queue instead): the relay's other side goes on meanwhile.
	WriteMessage(msg []byte) error
	// Close ends the connection; a ReadMessage in progress returns.
	Close() error
}

// TransportFault is an injected answer the pipeline marked as a fault
// (Response.Fault): a transport that can deliver faults natively (an HTTP
// agent side with --fault-layer http) turns it into the real thing.
type TransportFault struct {
	// Kind is the fault kind the agent sees: "timeout", "rate_limit",
	// "truncated_json", "server_error", "chaos", or a plugin's kind.
	Kind string
	// RetryAfter is the retry_after a rate_limit announces.
	RetryAfter time.Duration
}

// FaultConn is implemented by an agent Conn that delivers injected faults
// at its own layer. WriteFault gets the answer the agent would have got at
// the tool layer (msg) and the fault; a transport that cannot deliver the
// kind natively writes msg as WriteMessage would.
type FaultConn interface {
	Conn
	WriteFault(msg []byte, f TransportFault) error
}

// connWriter adapts a Conn to the relay's writers, which write a message
// as one or more Writes whose last ends with the message's newline (no
// other part of a message ends with one: a message has no raw newline
// inside, and its parts end before the id or at its end).
type connWriter struct {
	c   Conn
	buf []byte
	// fault, when set, sends the next whole message through WriteFault.
	fault *TransportFault
}

func (w *connWriter) Write(p []byte) (int, error) {
	if len(w.buf) == 0 && len(p) > 0 && p[len(p)-1] == '\n' {
		return len(p), w.send(p)
	}
	w.buf = append(w.buf, p...)
	if len(w.buf) == 0 || w.buf[len(w.buf)-1] != '\n' {
		return len(p), nil
	}
	err := w.send(w.buf)
	w.buf = w.buf[:0]
	if cap(w.buf) > 4*smallMessage {
		w.buf = nil
	}
	return len(p), err
}

func (w *connWriter) send(msg []byte) error {
	if f := w.fault; f != nil {
		w.fault = nil
		if fc, ok := w.c.(FaultConn); ok {
			return fc.WriteFault(msg, *f)
		}
	}
	return w.c.WriteMessage(msg)
}

// side is one side of a session as the relay reads and writes it,
// whatever the transport: the newline-delimited stdio pipes (pipeSide) and
// a message-level Conn (connSide) are two implementations of it. Nothing
// past this point — the readers, the writers, the pipeline, the judge —
// knows which one it is.
type side struct {
	// read returns the side's next message (see Conn.ReadMessage).
	read func() ([]byte, error)
	// w takes each message as one or more Writes, the last ending with
	// the message's newline.
	w io.Writer
	// try, when not nil, writes what the side takes now without waiting
	// (n < len(p) with a nil error: full).
	try func([]byte) (int, error)
}

// pipeSide is a side on byte streams of newline-delimited JSON-RPC (the
// stdio pipes, an in-process upstream): messages are read line by line and
// written in parts, never copied when big.
func pipeSide(r io.Reader, w io.Writer, try func([]byte) (int, error)) side {
	return side{read: lineReader(r), w: w, try: try}
}

// connSide is a side on a Conn. A Conn's WriteMessage does not wait for
// the peer, so writing is always a "try" that takes everything: the
// upstream writer hands messages to it at once, without its goroutine.
func connSide(c Conn) side {
	cw := &connWriter{c: c}
	return side{read: c.ReadMessage, w: cw, try: cw.Write}
}

// agentSide is the agent's side: Options.Agent, else Stdin and Stdout.
func agentSide(opts Options) side {
	if opts.Agent != nil {
		return connSide(opts.Agent)
	}
	return pipeSide(opts.Stdin, opts.Stdout, nil)
}

// lineReader returns the next newline-delimited message of r.
func lineReader(r io.Reader) func() ([]byte, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	return func() ([]byte, error) { return br.ReadBytes('\n') }
}
