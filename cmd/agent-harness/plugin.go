package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/cuonztech/agent-harness/host/plugin"
)

const pluginUsage = `Usage: agent-harness plugin inspect [flags] PATH
       agent-harness plugin new NAME --hook equivalence|classifier|fault [flags]

"agent-harness plugin inspect --help" and "agent-harness plugin new --help"
show each subcommand's flags.
`

const pluginInspectUsage = `Usage: agent-harness plugin inspect [flags] PATH

Loads the WebAssembly plugin at PATH exactly as the proxy would (compile,
check exports, ABI version and imports, create one instance, read the
manifest, run ah_init) and prints what it declares and how long loading
took, or the exact reason it is rejected (exit 1).

Flags:
  --config JSON               configuration passed to ah_init (default null)
  --plugin-timeout DURATION   deadline of one plugin call, 1ms–60s (default 100ms)
  --plugin-memory MIB         memory cap of an instance, 1–4096 (default 128)
  --plugin-cache-dir DIR      compilation cache (default <user cache dir>/agent-harness/wazero)
  --json                      print the result as JSON
  --help                      show this help

The ABI is documented in sdk/ABI.md.
`

const pluginNewUsage = `Usage: agent-harness plugin new NAME --hook equivalence|classifier|fault [flags]

Writes a ready-to-build plugin skeleton into ./NAME: go.mod, main.go with
the chosen hook implemented as a small working example, main_test.go
testing it, and README.md. NAME is the plugin's name: 1–64 characters
a-z, 0-9, '_' or '-', starting with a letter. An existing directory must
be empty.

Flags:
  --hook HOOK       equivalence (an operation key), classifier (read/write),
                    or fault (an extra --scenario); required
  --dir DIR         directory to write (default ./NAME)
  --module PATH     module path (default example.com/NAME)
  --sdk DIR         build against the SDK module in DIR (e.g. a checkout's
                    sdk/) through a replace line, instead of "go get"
  --help            show this help
`

// pluginFlags are the parsed `plugin inspect` flags.
type pluginFlags struct {
	path string
	opts plugin.Options
	json bool
	help bool
}

// runPlugin is `agent-harness plugin`.
func runPlugin(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "[agent-harness] plugin: missing subcommand (inspect, new); see agent-harness plugin --help")
		return exitUsage
	}
	switch args[0] {
	case "--help", "-h", "help":
		fmt.Fprint(stdout, pluginUsage)
		return exitOK
	case "inspect":
	case "new":
		return runPluginNew(args[1:], stdout, stderr)
	default:
		fmt.Fprintf(stderr, "[agent-harness] plugin: unknown subcommand %q (want inspect or new)\n", args[0])
		return exitUsage
	}
	f, err := parsePluginFlags(args[1:])
	if err != nil {
		fmt.Fprintf(stderr, "[agent-harness] plugin inspect: %s\n", err)
		return exitUsage
	}
	if f.help {
		fmt.Fprint(stdout, pluginInspectUsage)
		return exitOK
	}
	f.opts.Log = stderr // host warnings and plugin output, already prefixed
	start := time.Now()
	p, err := plugin.Load(ctx, f.path, f.opts)
	if err != nil {
		fmt.Fprintf(stderr, "[agent-harness] plugin inspect: %s\n", oneLine(err.Error()))
		return exitFailure
	}
	total := time.Since(start)
	defer p.Close(ctx)
	if f.json {
		writeInspectJSON(stdout, p, total)
	} else {
		writeInspect(stdout, p, total)
	}
	return exitOK
}

func parsePluginFlags(args []string) (pluginFlags, error) {
	var f pluginFlags
	fs := newFlagSet("plugin inspect")
	config := fs.String("config", "", "")
	timeout := fs.String("plugin-timeout", "", "")
	memory := fs.String("plugin-memory", "", "")
	startTimeout := fs.String("plugin-start-timeout", "", "")
	cacheDir := fs.String("plugin-cache-dir", "", "")
	fs.BoolVar(&f.json, "json", false, "")
	fs.BoolVar(&f.help, "help", false, "")
	if help, err := parseFlagSet(fs, args); help || err != nil {
		f.help = help
		return f, err
	}
	switch fs.NArg() {
	case 0:
		return f, errors.New("missing PATH of the .wasm module")
	case 1:
		f.path = fs.Arg(0)
	default:
		return f, fmt.Errorf("unexpected argument %q (one PATH only)", fs.Arg(1))
	}
	if fs.Changed("config") {
		if !json.Valid([]byte(*config)) {
			return f, fmt.Errorf("invalid --config: not valid JSON")
		}
		f.opts.Config = json.RawMessage(*config)
	}
	if fs.Changed("plugin-timeout") {
		d, err := time.ParseDuration(*timeout)
		if err != nil || d < time.Millisecond || d > time.Minute {
			return f, fmt.Errorf("invalid --plugin-timeout %q: a Go duration from 1ms to 60s", *timeout)
		}
		f.opts.Timeout = d
	}
	if fs.Changed("plugin-start-timeout") {
		d, err := time.ParseDuration(*startTimeout)
		if err != nil || d < time.Millisecond || d > 10*time.Minute {
			return f, fmt.Errorf("invalid --plugin-start-timeout %q: a Go duration from 1ms to 10m", *startTimeout)
		}
		f.opts.StartTimeout = d
	}
	if fs.Changed("plugin-memory") {
		n, err := strconv.Atoi(*memory)
		if err != nil || n < 1 || n > 4096 {
			return f, fmt.Errorf("invalid --plugin-memory %q: MiB from 1 to 4096", *memory)
		}
		f.opts.MemoryMiB = n
	}
	f.opts.CacheDir = *cacheDir
	return f, nil
}

func writeInspect(w io.Writer, p *plugin.Plugin, total time.Duration) {
	m, st := p.Manifest(), p.LoadStats()
	faults := strings.Join(m.Faults, ", ")
	if faults == "" {
		faults = "(none)"
	}
	cache := st.CacheDir
	if cache == "" {
		cache = "none"
	}
	fmt.Fprintf(w, "path         %s (%s)\n", p.Path(), inspectSize(int64(st.Size)))
	fmt.Fprintf(w, "name         %s\n", m.Name)
	fmt.Fprintf(w, "version      %s\n", m.Version)
	fmt.Fprintf(w, "abi          %d\n", m.ABI)
	fmt.Fprintf(w, "hooks        %s\n", strings.Join(m.Hooks, ", "))
	fmt.Fprintf(w, "faults       %s\n", faults)
	fmt.Fprintf(w, "imports      %s\n", strings.Join(st.Imports, ", "))
	fmt.Fprintf(w, "compile      %s (cache: %s)\n", inspectRound(st.Compile), cache)
	fmt.Fprintf(w, "instantiate  %s\n", inspectRound(st.Instantiate))
	fmt.Fprintf(w, "init         %s\n", inspectRound(st.Init))
	fmt.Fprintf(w, "load total   %s\n", inspectRound(total))
	fmt.Fprintf(w, "memory       %s per instance after init\n", inspectSize(int64(st.MemoryBytes)))
}

func writeInspectJSON(w io.Writer, p *plugin.Plugin, total time.Duration) {
	m, st := p.Manifest(), p.LoadStats()
	out := struct {
		Path          string          `json:"path"`
		Size          int             `json:"size"`
		Manifest      plugin.Manifest `json:"manifest"`
		Imports       []string        `json:"imports"`
		CompileMs     float64         `json:"compileMs"`
		InstantiateMs float64         `json:"instantiateMs"`
		InitMs        float64         `json:"initMs"`
		LoadMs        float64         `json:"loadMs"`
		CacheDir      string          `json:"cacheDir"`
		MemoryBytes   uint32          `json:"memoryBytes"`
	}{p.Path(), st.Size, m, st.Imports, inspectMillis(st.Compile), inspectMillis(st.Instantiate), inspectMillis(st.Init), inspectMillis(total), st.CacheDir, st.MemoryBytes}
	if out.Imports == nil {
		out.Imports = []string{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(out)
}

func inspectMillis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func inspectRound(d time.Duration) time.Duration {
	if d > time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(10 * time.Microsecond)
}

func inspectSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
