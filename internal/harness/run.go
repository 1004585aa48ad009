package harness

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/relay"
)

// IO are a proxy run's streams and its signal: Stdin and Stdout are the
// agent's side on stdio (the MCP channel: nothing else is written there),
// Stderr gets every log line. Caught reports the first stop signal (nil
// when none arrived; nil func: none ever).
type IO struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Caught func() os.Signal
}

// Run is one proxy run (behaviour §2): the report file's writer, the
// plugins, then the session (fault, judge, trace, pipeline, audit tools),
// all before the upstream starts — a bad report file target or scenario
// is a UsageError, a plugin that does not load its error — then the relay
// on stdio or Streamable HTTP until the agent is done or ctx is
// cancelled. The error is how it ended: nil (exit 0), a UsageError, an
// ExitError, or another error (its line, exit 1).
func Run(ctx context.Context, c Config, sio IO) error {
	caught := sio.Caught
	if caught == nil {
		caught = func() os.Signal { return nil }
	}
	stderr := sio.Stderr
	ctx, stopRelay := context.WithCancel(ctx)
	defer stopRelay()
	report, err := OpenReport(c, stderr) // the one writer of the report file
	if err != nil {
		return err
	}
	plugins, err := LoadPlugins(ctx, c, report, stderr)
	if err != nil {
		return err
	}
	defer plugins.Close()
	sc, err := NewSession(c, report, plugins.Extras(c.Scenario), stderr, stopRelay)
	if err != nil {
		return err
	}
	plugins.Attach(sc.pipeline.PluginFailed)
	sc.pipeline.ProbeBefore() // before the upstream starts (behaviour §16.1)

	ro := RelayOptions(c, plugins.Classifiers(), sio.Stdin, sio.Stdout, stderr)
	sc.relayOptions(&ro)
	if c.HTTP.Listen != "" {
		return runHTTP(ctx, c, ro, sc, caught, stderr)
	}
	if c.HTTP.UpstreamURL != "" {
		ro.Upstream = relay.ConnUpstream{Conn: newUpstreamConn(c, stderr)}
	}
	defer useOneProcessor()()
	err = relay.Run(ctx, ro)
	failed := sc.finish(err)
	sc.summary(err, stderr)
	return end(err, failed, caught())
}

// Values of Config.OnCancel (--on-cancel).
const (
	OnCancelForward = "forward"
	OnCancelSwallow = "swallow"
)

// RelayOptions maps the Config and the plugins' classifiers onto the
// relay. The pipeline (faults, judge, report file) and the audit tools
// plug in later: Pipeline, ExtraTools, LocalTool, OnTools, OnSessionEnd.
func RelayOptions(c Config, plugins []classify.Classifier, stdin io.Reader, stdout, stderr io.Writer) relay.Options {
	kf := c.keyFields()
	return relay.Options{
		Upstream:      c.Upstream,
		Stdin:         stdin,
		Stdout:        stdout,
		Stderr:        stderr,
		Classify:      c.Classifier(plugins),
		KeyField:      kf.Match,
		KeyFieldNames: kf.Names(),
		CallTimeout:   c.UpstreamTimeout,
		Quiet:         c.Quiet,
		SwallowCancel: c.OnCancel == OnCancelSwallow,
	}
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

// End is how a session ended, as an error for the CLI's exit code
// (behaviour §13): nil after the agent closed stdin; the relay's error for
// a relay error (its line, exit 1); ExitFailure when the setup or the
// report file failed (failed; the relay or the pipeline printed the line);
// ExitBrokenPipe when the agent stopped reading; 128+N after signal N.
func End(runErr error, failed bool, sig os.Signal) error { return end(runErr, failed, sig) }

func end(runErr error, failed bool, sig os.Signal) error {
	startFailed, agentGone := errors.Is(runErr, relay.ErrStartFailed), errors.Is(runErr, relay.ErrAgentGone)
	switch {
	case runErr != nil && !startFailed && !agentGone:
		return runErr
	case failed || startFailed:
		return ExitError{ExitFailure}
	case agentGone:
		return ExitError{ExitBrokenPipe}
	}
	if s, ok := sig.(syscall.Signal); ok {
		return ExitError{128 + int(s)}
	}
	return nil
}

// IsExecutable reports whether the upstream would find command as an
// executable file: a path (relative to dir when set, as exec resolves it)
// or a name on PATH.
func IsExecutable(command, dir string) bool {
	if !strings.ContainsRune(command, filepath.Separator) {
		_, err := exec.LookPath(command)
		return err == nil
	}
	if dir != "" && !filepath.IsAbs(command) {
		command = filepath.Join(dir, command)
	}
	fi, err := os.Stat(command)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
