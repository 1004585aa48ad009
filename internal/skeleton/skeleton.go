// Package skeleton writes the plugin skeleton of `agent-harness plugin
// new` (behaviour §12.5): a Go module with one hook implemented as a small
// working example, a test of it and a README, ready to build with
// GOOS=wasip1 GOARCH=wasm -buildmode=c-shared against the guest SDK.
package skeleton

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"go/format"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"text/template"
)

// SDKModule is the module path of the guest SDK.
const SDKModule = "github.com/cuonztech/agent-harness/sdk"

// DefaultSDKVersion is the SDK version a skeleton requires when the binary
// carries no release version of its own (a build from a checkout, go run):
// the version the root go.mod requires, which the repository tags as
// sdk/vX.Y.Z together with vX.Y.Z (behaviour §12.5; a test keeps the two
// equal).
const DefaultSDKVersion = "v0.1.0"

// rootModule is the module path of agent-harness itself.
const rootModule = "github.com/cuonztech/agent-harness"

// pseudoVersion matches the tail every Go pseudo-version ends with: a
// 14-digit UTC time and a 12-digit commit hash.
var pseudoVersion = regexp.MustCompile(`[0-9]{14}-[0-9a-f]{12}$`)

// SDKVersion is the SDK version matching the running binary: its module
// version when that is a release (go install …@vX.Y.Z stamps vX.Y.Z, and
// the SDK is tagged at the same version), DefaultSDKVersion for anything
// else — no build information, "(devel)", a pseudo-version, a "+dirty"
// build, or a binary of another main module.
func SDKVersion(info *debug.BuildInfo) string {
	if info == nil || info.Main.Path != rootModule {
		return DefaultSDKVersion
	}
	v := info.Main.Version
	if !strings.HasPrefix(v, "v") || strings.Contains(v, "+") || pseudoVersion.MatchString(v) {
		return DefaultSDKVersion
	}
	return v
}

// Hooks are the hook names `plugin new --hook` accepts, in help order.
var Hooks = []string{"equivalence", "classifier", "fault", "state"}

// FaultName is the scenario name of the fault skeleton.
const FaultName = "unavailable_once"

//go:embed templates/*.tmpl
var templates embed.FS

// Options say what to generate.
type Options struct {
	// Name is the plugin name (manifest, --plugin-config) and the last
	// element of the default module path; see CheckName.
	Name string
	// Hook is one of Hooks.
	Hook string
	// Module is the module path; default "example.com/" + Name.
	Module string
	// SDKDir, when set, is an absolute directory holding the SDK module:
	// go.mod then requires the SDK through a replace line to it.
	SDKDir string
	// SDKVersion is the published SDK version go.mod requires when SDKDir
	// is empty; default DefaultSDKVersion (the command passes SDKVersion
	// of its build information).
	SDKVersion string
}

// File is one generated file.
type File struct {
	Name string // slash-separated, relative to the plugin directory
	Data []byte
}

// CheckName reports why name cannot name a plugin: it must be a plugin
// name the host accepts (1–64 characters a-z, 0-9, '_' or '-', starting
// with a letter) and a module path element and directory name on every
// system (not a Windows device name such as "con" or "lpt1").
func CheckName(name string) error {
	if name == "" {
		return errors.New("missing NAME of the plugin")
	}
	if len(name) > 64 {
		return fmt.Errorf("invalid NAME %q: at most 64 characters", name)
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return fmt.Errorf("invalid NAME %q: only a-z, 0-9, '_' and '-' are allowed", name)
		}
	}
	if c := name[0]; c < 'a' || c > 'z' {
		return fmt.Errorf("invalid NAME %q: must start with a letter a-z", name)
	}
	if windowsDevice(name) {
		return fmt.Errorf("invalid NAME %q: a reserved device name on Windows", name)
	}
	return nil
}

// windowsDevice reports whether elem is a reserved Windows file name, which
// the go command refuses as a module path element.
func windowsDevice(elem string) bool {
	switch elem {
	case "con", "prn", "aux", "nul":
		return true
	}
	if len(elem) == 4 && (strings.HasPrefix(elem, "com") || strings.HasPrefix(elem, "lpt")) && elem[3] >= '0' && elem[3] <= '9' {
		return true
	}
	return false
}

// CheckModule reports why path cannot be the plugin's module path. It is
// a conservative subset of the go command's rules: slash-separated
// non-empty elements of ASCII letters, digits and "-._~", none starting
// or ending with a dot, none a Windows device name or short name.
func CheckModule(path string) error {
	if path == "" {
		return errors.New("invalid --module: empty")
	}
	for elem := range strings.SplitSeq(path, "/") {
		if elem == "" {
			return fmt.Errorf("invalid --module %q: empty path element", path)
		}
		if elem[0] == '.' || elem[len(elem)-1] == '.' {
			return fmt.Errorf("invalid --module %q: an element starts or ends with a dot", path)
		}
		for i := 0; i < len(elem); i++ {
			c := elem[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0) {
				return fmt.Errorf("invalid --module %q: character %q is not allowed", path, c)
			}
		}
		base, _, _ := strings.Cut(strings.ToLower(elem), ".")
		if windowsDevice(base) {
			return fmt.Errorf("invalid --module %q: %q is a reserved device name on Windows", path, elem)
		}
		if i := strings.LastIndexByte(elem, '~'); i >= 0 && i < len(elem)-1 && strings.Trim(elem[i+1:], "0123456789") == "" {
			return fmt.Errorf("invalid --module %q: %q ends in a tilde and digits (a Windows short name)", path, elem)
		}
	}
	return nil
}

// Generate returns the skeleton's files: go.mod, main.go, main_test.go
// and README.md. The Go files are gofmt-formatted.
func Generate(o Options) ([]File, error) {
	if err := CheckName(o.Name); err != nil {
		return nil, err
	}
	known := false
	for _, h := range Hooks {
		known = known || h == o.Hook
	}
	if !known {
		return nil, fmt.Errorf("invalid --hook %q: want %s", o.Hook, strings.Join(Hooks, ", "))
	}
	if o.Module == "" {
		o.Module = "example.com/" + o.Name
	}
	if err := CheckModule(o.Module); err != nil {
		return nil, err
	}
	if o.SDKVersion == "" {
		o.SDKVersion = DefaultSDKVersion
	}
	data := struct {
		Name, Hook, Module, SDKDir, SDKVersion, Fault string
	}{o.Name, o.Hook, o.Module, goModPath(o.SDKDir), o.SDKVersion, FaultName}
	plan := []struct{ out, tmpl string }{
		{"go.mod", "go.mod.tmpl"},
		{"main.go", o.Hook + ".go.tmpl"},
		{"main_test.go", o.Hook + "_test.go.tmpl"},
		{"README.md", "README.md.tmpl"},
	}
	files := make([]File, 0, len(plan))
	for _, p := range plan {
		t, err := template.ParseFS(templates, "templates/"+p.tmpl)
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		if err := t.Execute(&b, data); err != nil {
			return nil, err
		}
		out := b.Bytes()
		if strings.HasSuffix(p.out, ".go") {
			if out, err = format.Source(out); err != nil {
				return nil, fmt.Errorf("formatting %s: %v", p.out, err)
			}
		} else if !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, '\n')
		}
		files = append(files, File{p.out, out})
	}
	return files, nil
}

// goModPath writes a directory as a go.mod token, quoted when it holds
// anything but plain path characters.
func goModPath(dir string) string {
	if dir == "" {
		return ""
	}
	for _, r := range dir {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-~+:", r)) {
			return strconv.Quote(dir)
		}
	}
	return dir
}

// Write creates dir (and its parents) and writes files into it. It
// refuses a dir that exists and is not an empty directory, and never
// replaces a file: each file is created exclusively.
func Write(dir string, files []File) error {
	if entries, err := os.ReadDir(dir); err == nil {
		if len(entries) > 0 {
			return fmt.Errorf("%s already exists and is not empty; choose another NAME or --dir", dir)
		}
	} else if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	} else {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return fmt.Errorf("%s: %v", dir, pe.Err)
		}
		return err
	}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		w, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		_, err = w.Write(f.Data)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
