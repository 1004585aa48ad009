package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/cuonztech/agent-harness/internal/harness"
	"github.com/cuonztech/agent-harness/internal/relay"
)

// runProxy is `agent-harness proxy`: parse and check every flag before
// anything starts, then relay one MCP session (behaviour §2) as
// internal/harness composes it.
func runProxy(ctx context.Context, args []string, std stdio) error {
	o, err := parseProxyFlags(args)
	if err != nil {
		return withUsage(err, proxyUsage)
	}
	warnTerminal(o, std.in, std.err)
	ctx, stopSignals, caught := withStopSignals(ctx)
	defer stopSignals()
	claimFiles(&o, std.err) // --no-replace: this process's own numbered files
	return proxyErr(harness.Run(ctx, proxyConfig(o), harness.IO{Stdin: std.in, Stdout: std.out, Stderr: std.err, Caught: caught}))
}

// proxyConfig maps the proxy flags onto the session's composition.
func proxyConfig(o proxyOptions) harness.Config {
	po := o.PluginLimits
	po.Timeout, po.MemoryMiB, po.CacheDir = o.PluginTimeout, o.PluginMemoryMiB, o.PluginCacheDir
	return harness.Config{
		Kind:            "proxy",
		Upstream:        relay.CommandUpstream{Command: o.UpstreamCommand, Args: o.UpstreamArgs, Dir: o.UpstreamCwd, Env: o.UpstreamEnv},
		UpstreamTimeout: o.UpstreamTimeout,
		OnCancel:        o.OnCancel,
		Scenario:        o.Scenario,
		Chaos:           o.Chaos,
		RetryAfter:      o.RetryAfter,

		Classification:  o.Classification,
		RedactArguments: o.RedactArguments,

		AuditTools:     o.AuditTools,
		ReportFile:     o.ReportFile,
		TraceFile:      o.TraceFile,
		ReportInterval: o.ReportInterval,
		Quiet:          o.Quiet,

		Plugins:       o.Plugins,
		PluginConfig:  o.PluginConfig,
		PluginOptions: po,

		HTTP: o.HTTP,

		State: o.State,
	}
}

// proxyErr is a harness error as the CLI's: a UsageError is the usage line
// (exit 2), an ExitError its exit code; other errors pass unchanged (exit
// 1 with their line).
func proxyErr(err error) error {
	var ue harness.UsageError
	var ee harness.ExitError
	switch {
	case errors.As(err, &ue):
		return usagef("%s", ue.Msg)
	case errors.As(err, &ee):
		return exitCode(ee.Code)
	}
	return err
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
