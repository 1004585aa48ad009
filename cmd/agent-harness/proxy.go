package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/relay"
)

// exitBrokenPipe is the exit code when the agent stopped reading (as a
// shell reports a process killed by SIGPIPE).
const exitBrokenPipe = 128 + int(syscall.SIGPIPE)

// runProxy is `agent-harness proxy`: parse and check every flag before
// anything starts, then relay one MCP session (behaviour §2).
func runProxy(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	o, err := parseProxyFlags(args)
	if err != nil {
		return withUsage(err, proxyUsage)
	}
	warnTerminal(o, stdin, stderr)
	ctx, stopSignals, caught := withStopSignals(ctx)
	defer stopSignals()
	ctx, stopRelay := context.WithCancel(ctx)
	defer stopRelay()
	// The report file's writer, plugins (proxyplugins.go), then scenario,
	// judge and audit tools (proxyscenario.go), all before the upstream
	// starts: a bad report file target or --scenario exits 2, a plugin that
	// does not load exits 1.
	claimFiles(&o, stderr)               // --no-replace: this process's own numbered files
	report, err := openReport(o, stderr) // the one writer of --report-file
	if err != nil {
		return err
	}
	plugins, err := loadProxyPlugins(ctx, o, report, stderr)
	if err != nil {
		return err
	}
	defer plugins.close()
	sc, err := newScenario(o, report, plugins.extras(o.Scenario), stderr, stopRelay)
	if err != nil {
		return err
	}
	plugins.attach(sc.pipeline.PluginFailed)

	ro := relayOptions(o, plugins.classifiers(), stdin, stdout, stderr)
	sc.relayOptions(&ro)
	if o.HTTP.Listen != "" {
		return runProxyHTTP(ctx, o, ro, sc, caught, stderr)
	}
	if o.HTTP.UpstreamURL != "" {
		ro.Upstream = relay.ConnUpstream{Conn: newUpstreamConn(o, stderr)}
	}
	defer useOneProcessor()()
	err = relay.Run(ctx, ro)
	failed := sc.finish(err)
	sc.summary(o, err, stderr)
	return proxyEnd(err, failed, caught())
}

// relayOptions maps the proxy flags and the plugins' classifiers onto the
// relay. The pipeline (faults, judge, report file) and the audit tools
// plug in here: Pipeline, ExtraTools, LocalTool, OnTools, OnSessionEnd.
func relayOptions(o proxyOptions, plugins []classify.Classifier, stdin io.Reader, stdout, stderr io.Writer) relay.Options {
	kf := canon.ParseKeyFields(o.KeyFields)
	chain := classify.NewChain(classify.ChainOptions{WriteTools: o.WriteTools, ReadTools: o.ReadTools, Plugins: plugins,
		IdempotentTools: o.IdempotentTools, IgnoreIdempotentHint: o.IgnoreIdempotentHint})
	return relay.Options{
		Upstream:      relay.CommandUpstream{Command: o.UpstreamCommand, Args: o.UpstreamArgs, Dir: o.UpstreamCwd, Env: o.UpstreamEnv},
		Stdin:         stdin,
		Stdout:        stdout,
		Stderr:        stderr,
		Classify:      chain.Classify,
		KeyField:      kf.Match,
		KeyFieldNames: kf.Names(),
		CallTimeout:   o.UpstreamTimeout,
		Quiet:         o.Quiet,
	}
}

// withStopSignals cancels ctx on SIGTERM, SIGINT or SIGHUP; caught reports
// the first such signal (nil when none arrived).
func withStopSignals(parent context.Context) (ctx context.Context, stop func(), caught func() os.Signal) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	got := make(chan os.Signal, 1)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			got <- sig
			cancel()
		case <-done:
		}
	}()
	var first os.Signal
	caught = func() os.Signal {
		if first == nil {
			select {
			case first = <-got:
			default:
			}
		}
		return first
	}
	stop = func() {
		signal.Stop(ch)
		close(done)
		cancel()
	}
	return ctx, stop, caught
}

// useOneProcessor runs the relay on one Go processor unless GOMAXPROCS is
// set in the environment, and returns the function that restores the
// previous setting. The relay is I/O-bound and hands every call between a
// few goroutines; on one processor those hand-overs stay on one thread,
// while with more the runtime wakes idle threads for each (futex wake-ups,
// spinning), which cost more CPU and latency per call than the relay's own
// work (see BenchmarkProxyAddedLatency).
func useOneProcessor() (restore func()) {
	if os.Getenv("GOMAXPROCS") != "" {
		return func() {}
	}
	prev := runtime.GOMAXPROCS(1)
	return func() { runtime.GOMAXPROCS(prev) }
}

// proxyEnd is how the session ended, as cmdExit's exit code (behaviour §13): 0
// after the agent closed stdin; 1 with its line for a relay error; 1 when
// the setup or the report file failed (failed; the relay or the pipeline
// printed the line); 141 when the agent stopped reading; 128+N after
// signal N.
func proxyEnd(runErr error, failed bool, sig os.Signal) error {
	startFailed, agentGone := errors.Is(runErr, relay.ErrStartFailed), errors.Is(runErr, relay.ErrAgentGone)
	switch {
	case runErr != nil && !startFailed && !agentGone:
		return runErr
	case failed || startFailed:
		return exitCode(exitFailure)
	case agentGone:
		return exitCode(exitBrokenPipe)
	}
	if s, ok := sig.(syscall.Signal); ok {
		return exitCode(128 + int(s))
	}
	return nil
}

// terminalHint is the line for a proxy whose stdin is a terminal (behaviour
// §2.8): someone ran it by hand, where a client should have started it.
const terminalHint = "[agent-harness] proxy: stdin is a terminal, but the proxy speaks MCP (JSON-RPC) on stdin and stdout and is meant to be started by an MCP client (README: Configuring an MCP client); waiting for MCP messages on stdin\n"

// warnTerminal prints terminalHint when the agent side is stdio and stdin
// is a terminal; the proxy carries on (a person may type JSON-RPC).
func warnTerminal(o proxyOptions, stdin io.Reader, stderr io.Writer) {
	if f, ok := stdin.(*os.File); ok && o.HTTP.Listen == "" && isTTY(f) {
		io.WriteString(stderr, terminalHint)
	}
}
