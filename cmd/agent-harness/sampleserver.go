package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuonztech/agent-harness/internal/demo"
	"github.com/cuonztech/agent-harness/internal/report"
	"github.com/cuonztech/agent-harness/internal/sampleserver"
)

const sampleServerUsage = `Usage: agent-harness sample-server [--state-file FILE] [--listen ADDR] [--search on|off] [--dedupe-keys]
       agent-harness sample-server state FILE

A small booking backend as an MCP server (stdio, or Streamable HTTP with
--listen), for trying a campaign without your own server: create_booking
(write; optional idempotency_key), get_booking and find_bookings (reads),
cancel_booking (write, idempotentHint). Not idempotent without a key.

"sample-server state FILE" is a ready state probe (proxy --state-command):
it prints the state file's counts as one JSON object, {"bookings": N,
"replayed": R, "cancellations": C, "executions": E}; a file not yet
created counts 0.

Flags:
  --state-file FILE  append every execution to FILE as one JSON line, as it
                     happens (the ground truth; created if missing)
  --listen ADDR      serve Streamable HTTP on ADDR (HOST:PORT, :PORT or PORT;
                     :PORT and PORT bind 127.0.0.1, port 0 picks a free one)
                     at /mcp instead of stdio; the URL is printed on stderr
  --search on|off    off: no find_bookings, a booking can only be read by
                     its id (get_booking) — the "not searchable" condition
                     where an agent that lost the id cannot check (default on)
  --help             show this help
  --version          print the version and exit
`

type sampleServerFlags struct {
	stateFile, listen string
	noSearch          bool
}

var sampleServerTable = []flagSpec[sampleServerFlags]{
	{name: "state-file", arg: "FILE", set: func(f *sampleServerFlags, v string) error { f.stateFile = v; return nil }},
	{name: "listen", arg: "ADDR", set: func(f *sampleServerFlags, v string) error {
		// As the proxy's --listen: no host is loopback, never every interface.
		addr, err := parseListen(v)
		f.listen = addr
		return err
	}},
	{name: "search", arg: "on|off", set: func(f *sampleServerFlags, v string) error {
		switch strings.ToLower(v) {
		case "on":
			f.noSearch = false
		case "off":
			f.noSearch = true
		default:
			return fmt.Errorf("%q is not on or off", v)
		}
		return nil
	}},
	{name: "dedupe-keys", set: func(*sampleServerFlags, string) error { return nil }},
	{name: "help"},
	{name: "version"},
}

// runSampleServer is `agent-harness sample-server` (behaviour §9.5).
func runSampleServer(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var f sampleServerFlags
	cl, err := parseFlags(sampleServerTable, &f, flagRules{cmd: "sample-server", quoted: true}, args)
	if err == nil && len(cl.args) > 0 && cl.args[0] == "state" {
		return runSampleState(cl.args[1:], stdout)
	}
	if err == nil && len(cl.args) > 0 {
		err = usagef("unexpected argument %s", quoteArg(cl.args[0]))
	}
	if err != nil {
		return withUsage(err, func() string { return sampleServerUsage })
	}
	stateFile, listen := &f.stateFile, &f.listen
	var state io.Writer
	if *stateFile != "" {
		f, err := os.OpenFile(*stateFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o666)
		if err != nil {
			return fmt.Errorf("state file: %w", err)
		}
		defer f.Close()
		state = f
	}
	ctx, stopSignals, _ := withStopSignals(ctx)
	defer stopSignals()
	srv := sampleserver.New(state).ServerWith(report.HarnessVersion, sampleserver.Options{NoSearch: f.noSearch})
	if *listen == "" {
		t := &demo.DrainingTransport{Transport: &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}}
		err = srv.Run(ctx, t)
	} else {
		err = serveHTTP(ctx, srv, *listen, stderr)
	}
	if err != nil && !isEndOfSession(err) {
		return err
	}
	return nil
}

// runSampleState is `sample-server state FILE` (behaviour §16.4): the
// state file's counts on stdout as one JSON object.
func runSampleState(args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return withUsage(usagef("state takes one FILE, the --state-file"), func() string { return sampleServerUsage })
	}
	c, err := sampleserver.ReadCounts(args[0])
	if err != nil {
		return err
	}
	b, _ := json.Marshal(c)
	_, err = fmt.Fprintf(stdout, "%s\n", b)
	return err
}

// serveHTTP serves srv over Streamable HTTP at ADDR/mcp until ctx ends.
func serveHTTP(ctx context.Context, srv *mcp.Server, addr string, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	hs := &http.Server{Handler: mux}
	fmt.Fprintf(stderr, "[agent-harness] sample-server: listening on http://%s/mcp\n", ln.Addr())
	go func() {
		<-ctx.Done()
		hs.Close()
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
