package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cuonztech/agent-harness/internal/plugin"
)

const pluginUsage = `Usage: agent-harness plugin inspect [flags] PATH
       agent-harness plugin check [flags] FILE.wasm
       agent-harness plugin new NAME --hook equivalence|classifier|fault|state [flags]

"agent-harness plugin inspect --help", "agent-harness plugin check --help"
and "agent-harness plugin new --help" show each subcommand's flags.
`

// pluginInspectUsage is the text of `agent-harness plugin inspect --help`.
func pluginInspectUsage() string {
	return `Usage: agent-harness plugin inspect [flags] PATH

Loads the WebAssembly plugin at PATH exactly as the proxy would (compile,
check exports, ABI version and imports, create one instance, read the
manifest, run ah_init) and prints what it declares and how long loading
took, or the exact reason it is rejected (exit 1).

Flags:
` + pluginInspectFlagSet(&pluginFlags{}).usage() + `
The ABI is documented in sdk/ABI.md.
`
}

const pluginNewUsage = `Usage: agent-harness plugin new NAME --hook equivalence|classifier|fault|state [flags]

Writes a ready-to-build plugin skeleton into ./NAME: go.mod, main.go with
the chosen hook implemented as a small working example, main_test.go
testing it, and README.md. NAME is the plugin's name: 1–64 characters
a-z, 0-9, '_' or '-', starting with a letter. An existing directory must
be empty.

Flags:
  --hook HOOK       equivalence (an operation key), classifier (read/write),
                    fault (an extra --scenario) or state (effects per
                    operation from the state probe); required
  --dir DIR         directory to write (default ./NAME)
  --module PATH     module path (default example.com/NAME)
  --sdk DIR         build against the SDK module in DIR (e.g. a checkout's
                    sdk/) through a replace line, instead of the published
                    SDK released with this binary
  --help            show this help
  --version         print the version and exit
`

// pluginFlags are the parsed `plugin inspect` flags.
type pluginFlags struct {
	path string
	opts plugin.Options
	json bool
}

// runPlugin is `agent-harness plugin`.
func runPlugin(ctx context.Context, args []string, std stdio) error {
	if len(args) == 0 {
		return usagef("missing subcommand (inspect, check, new); see agent-harness plugin --help")
	}
	switch args[0] {
	case "--help", "-h", "help":
		return helpError{usage: pluginUsage}
	case "--version":
		return errVersion
	case "inspect":
		return inCmd("plugin inspect", runPluginInspect(ctx, args[1:], std))
	case "check":
		return inCmd("plugin check", runPluginCheck(ctx, args[1:], std))
	case "new":
		return inCmd("plugin new", runPluginNew(ctx, args[1:], std))
	}
	hint := ""
	if s := closestName(args[0], []string{"inspect", "check", "new"}); s != "" && !strings.HasPrefix(args[0], "-") {
		hint = "; did you mean " + s + "?"
	}
	return usagef("unknown subcommand %q (want inspect, check or new%s)", args[0], hint)
}

// runPluginInspect is `agent-harness plugin inspect PATH`.
func runPluginInspect(ctx context.Context, args []string, std stdio) error {
	f, err := parsePluginFlags(args)
	if err != nil {
		return withUsage(err, pluginInspectUsage)
	}
	stdout := std.out
	f.opts.Log = std.err // host warnings and plugin output, already prefixed
	start := time.Now()
	p, err := plugin.Load(ctx, f.path, f.opts)
	if err != nil {
		return err
	}
	total := time.Since(start)
	defer p.Close(ctx)
	if f.json {
		writeInspectJSON(stdout, p, total)
	} else {
		writeInspect(stdout, p, total)
	}
	return nil
}

// pluginInspectFlagSet defines the flags of `plugin inspect` on f; the
// limits' ranges and defaults are plugin.Limits'.
func pluginInspectFlagSet(f *pluginFlags) *flagSet {
	s := newFlagSet("plugin inspect")
	s.quoted = true
	pluginConfigFlag(s, f)
	inspectLimit(s, &f.opts, "plugin-timeout", "DURATION", "deadline of one plugin call")
	inspectLimit(s, &f.opts, "plugin-start-timeout", "DURATION", "deadline for starting the instance")
	inspectLimit(s, &f.opts, "plugin-memory", "MIB", "memory cap of an instance")
	pluginCacheDirFlag(s, f)
	s.toggle(&f.json, "json", "print the result as JSON")
	s.helpAndVersion("show this help", "print the version and exit")
	return s
}

// pluginConfigFlag is --config of plugin inspect and plugin check.
func pluginConfigFlag(s *flagSet, f *pluginFlags) {
	s.value(funcValue(func(v string) error {
		if !json.Valid([]byte(v)) {
			return usagef("invalid --config: not valid JSON")
		}
		f.opts.Config = json.RawMessage(v)
		return nil
	}), "config", "JSON", "null", "configuration passed to ah_init")
}

// pluginCacheDirFlag is --plugin-cache-dir of plugin inspect and plugin
// check.
func pluginCacheDirFlag(s *flagSet, f *pluginFlags) {
	s.text(&f.opts.CacheDir, "plugin-cache-dir", "DIR", "<user cache dir>/agent-harness/wazero", "compilation cache")
}

// inspectLimit defines a plugin limit's flag with the wording of `plugin
// inspect`: invalid --plugin-timeout "0s": a Go duration from 1ms to 60s.
func inspectLimit(s *flagSet, opts *plugin.Options, name, arg, usage string) {
	l := plugin.LimitOf(name)
	if l == nil {
		panic("no plugin limit " + name)
	}
	lo := l.LowestFlag()
	s.value(funcValue(func(v string) error {
		n, err := parseLimit(*l, v)
		switch {
		case err == nil:
			l.Set(opts, n)
			return nil
		case l.Duration:
			return usagef("invalid --%s %q: a Go duration from %s to %s", name, v,
				plugin.ShortDuration(time.Duration(lo)), plugin.ShortDuration(time.Duration(l.Max)))
		}
		return usagef("invalid --%s %q: %s from %d to %d", name, v, l.Unit, lo, l.Max)
	}), name, arg, limitDefault(*l), usage+", "+l.Range(lo))
}

func parsePluginFlags(args []string) (pluginFlags, error) {
	var f pluginFlags
	words, err := pluginInspectFlagSet(&f).parse(args)
	if err != nil {
		return f, err
	}
	switch len(words) {
	case 0:
		return f, usagef("missing PATH of the .wasm module")
	case 1:
		f.path = words[0]
	default:
		return f, usagef("unexpected argument %q (one PATH only)", words[1])
	}
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
