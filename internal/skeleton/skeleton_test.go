package skeleton

import (
	"bytes"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestCheckName(t *testing.T) {
	ok := []string{"a", "myplugin", "my-plugin", "my_plugin2", "x" + strings.Repeat("9", 63), "config", "com", "com10", "lpt"}
	for _, n := range ok {
		if err := CheckName(n); err != nil {
			t.Errorf("CheckName(%q) = %v, want nil", n, err)
		}
	}
	bad := map[string]string{
		"":                            "missing NAME of the plugin",
		"My":                          `invalid NAME "My": only a-z, 0-9, '_' and '-' are allowed`,
		"9lives":                      `invalid NAME "9lives": must start with a letter a-z`,
		"-x":                          `invalid NAME "-x": must start with a letter a-z`,
		"a.b":                         `invalid NAME "a.b": only a-z, 0-9, '_' and '-' are allowed`,
		"a/b":                         `invalid NAME "a/b": only a-z, 0-9, '_' and '-' are allowed`,
		"..":                          `invalid NAME "..": only a-z, 0-9, '_' and '-' are allowed`,
		"über":                        `invalid NAME "über": only a-z, 0-9, '_' and '-' are allowed`,
		"con":                         `invalid NAME "con": a reserved device name on Windows`,
		"lpt1":                        `invalid NAME "lpt1": a reserved device name on Windows`,
		"x" + strings.Repeat("y", 64): `invalid NAME "x` + strings.Repeat("y", 64) + `": at most 64 characters`,
	}
	for n, want := range bad {
		if err := CheckName(n); err == nil || err.Error() != want {
			t.Errorf("CheckName(%q) = %v, want %q", n, err, want)
		}
	}
}

func TestCheckModule(t *testing.T) {
	for _, p := range []string{"example.com/myplugin", "myplugin", "github.com/Acme/hotel-plugins/v2", "a.b/c_d~e"} {
		if err := CheckModule(p); err != nil {
			t.Errorf("CheckModule(%q) = %v, want nil", p, err)
		}
	}
	bad := map[string]string{
		"":                   "invalid --module: empty",
		"example.com/":       `invalid --module "example.com/": empty path element`,
		"/abs":               `invalid --module "/abs": empty path element`,
		"a//b":               `invalid --module "a//b": empty path element`,
		"example.com/.x":     `invalid --module "example.com/.x": an element starts or ends with a dot`,
		"example.com/x.":     `invalid --module "example.com/x.": an element starts or ends with a dot`,
		"example.com/a b":    `invalid --module "example.com/a b": character ' ' is not allowed`,
		`example.com/a"b`:    `invalid --module "example.com/a\"b": character '"' is not allowed`,
		"example.com/Aux.go": `invalid --module "example.com/Aux.go": "Aux.go" is a reserved device name on Windows`,
		"example.com/x~1":    `invalid --module "example.com/x~1": "x~1" ends in a tilde and digits (a Windows short name)`,
	}
	for p, want := range bad {
		if err := CheckModule(p); err == nil || err.Error() != want {
			t.Errorf("CheckModule(%q) = %v, want %q", p, err, want)
		}
	}
}

func TestGenerate(t *testing.T) {
	for _, hook := range Hooks {
		t.Run(hook, func(t *testing.T) {
			files, err := Generate(Options{Name: "hotel-x", Hook: hook})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			got := map[string]string{}
			for _, f := range files {
				names = append(names, f.Name)
				got[f.Name] = string(f.Data)
			}
			if want := []string{"go.mod", "main.go", "main_test.go", "README.md"}; !slices.Equal(names, want) {
				t.Fatalf("files %v, want %v", names, want)
			}
			if want := "module example.com/hotel-x\n\ngo 1.26.0\n\nrequire github.com/cuonztech/agent-harness/sdk " + DefaultSDKVersion + "\n"; got["go.mod"] != want {
				t.Errorf("go.mod without --sdk:\n%s\nwant:\n%s", got["go.mod"], want)
			}
			for _, name := range []string{"main.go", "main_test.go"} {
				src := []byte(got[name])
				if formatted, err := format.Source(src); err != nil || !bytes.Equal(formatted, src) {
					t.Errorf("%s is not gofmt-formatted (%v)", name, err)
				}
				f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if f.Name.Name != "main" {
					t.Errorf("%s: package %s, want main", name, f.Name.Name)
				}
				imports := false
				for _, im := range f.Imports {
					imports = imports || im.Path.Value == strconv.Quote(SDKModule)
				}
				if !imports {
					t.Errorf("%s does not import the SDK", name)
				}
			}
			if !strings.Contains(got["main.go"], `Name:`) || !strings.Contains(got["main.go"], `"hotel-x"`) {
				t.Errorf("main.go does not register the plugin name:\n%s", got["main.go"])
			}
			readme := got["README.md"]
			for _, want := range []string{"# hotel-x — an agent-harness plugin (" + hook + ")", "go mod tidy", "downloads the SDK " + DefaultSDKVersion, "-o hotel-x.wasm", "agent-harness plugin inspect hotel-x.wasm"} {
				if !strings.Contains(readme, want) {
					t.Errorf("README lacks %q:\n%s", want, readme)
				}
			}
			if strings.Contains(readme, "{{") || strings.Contains(readme, "<no value>") {
				t.Errorf("README has template leftovers:\n%s", readme)
			}
		})
	}
}

func TestGenerateSDKDir(t *testing.T) {
	files, err := Generate(Options{Name: "p", Hook: "fault", Module: "github.com/acme/p", SDKDir: "/src/agent-harness/sdk"})
	if err != nil {
		t.Fatal(err)
	}
	want := "module github.com/acme/p\n\ngo 1.26.0\n\nrequire github.com/cuonztech/agent-harness/sdk v0.0.0-00010101000000-000000000000\n\n" +
		"// The SDK from a local checkout (agent-harness plugin new --sdk).\nreplace github.com/cuonztech/agent-harness/sdk => /src/agent-harness/sdk\n"
	if got := string(files[0].Data); got != want {
		t.Errorf("go.mod:\n%s\nwant:\n%s", got, want)
	}
	if strings.Contains(string(files[3].Data), "go mod tidy") {
		t.Errorf("README with --sdk still says go mod tidy:\n%s", files[3].Data)
	}
	// A directory with spaces or backslashes is quoted as go.mod wants.
	files, err = Generate(Options{Name: "p", Hook: "fault", SDKDir: `C:\My Work\sdk`})
	if err != nil {
		t.Fatal(err)
	}
	if want := `replace github.com/cuonztech/agent-harness/sdk => "C:\\My Work\\sdk"` + "\n"; !strings.HasSuffix(string(files[0].Data), want) {
		t.Errorf("go.mod:\n%s\nwant the quoted path %s", files[0].Data, want)
	}
}

// TestGenerateSDKVersion: without --sdk the skeleton requires the given
// published SDK version, with no replace line.
func TestGenerateSDKVersion(t *testing.T) {
	files, err := Generate(Options{Name: "p", Hook: "classifier", SDKVersion: "v1.4.2"})
	if err != nil {
		t.Fatal(err)
	}
	want := "module example.com/p\n\ngo 1.26.0\n\nrequire github.com/cuonztech/agent-harness/sdk v1.4.2\n"
	if got := string(files[0].Data); got != want {
		t.Errorf("go.mod:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(string(files[3].Data), "go mod tidy                                       # once: downloads the SDK v1.4.2, writes go.sum") {
		t.Errorf("README does not name the SDK version:\n%s", files[3].Data)
	}
}

// TestSDKVersion: the skeleton's SDK version is the binary's own release
// version (the repository tags vX.Y.Z and sdk/vX.Y.Z together), and
// DefaultSDKVersion whenever the build information names no release.
func TestSDKVersion(t *testing.T) {
	main := func(path, v string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: path, Version: v}}
	}
	tests := []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"go install @v0.3.1", main(rootModule, "v0.3.1"), "v0.3.1"},
		{"a pre-release tag", main(rootModule, "v0.4.0-rc.1"), "v0.4.0-rc.1"},
		{"no build information", nil, DefaultSDKVersion},
		{"devel", main(rootModule, "(devel)"), DefaultSDKVersion},
		{"empty", main(rootModule, ""), DefaultSDKVersion},
		{"pseudo-version", main(rootModule, "v0.0.0-20261201203000-0e7dd12a1b2c"), DefaultSDKVersion},
		{"pseudo-version after a tag", main(rootModule, "v0.1.1-0.20261201203000-0e7dd12a1b2c"), DefaultSDKVersion},
		{"dirty tree", main(rootModule, "v0.3.1+dirty"), DefaultSDKVersion},
		{"another main module", main("example.com/wrapper", "v2.0.0"), DefaultSDKVersion},
	}
	for _, tt := range tests {
		if got := SDKVersion(tt.info); got != tt.want {
			t.Errorf("%s: SDKVersion = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestDefaultSDKVersionIsTheRequirement: DefaultSDKVersion is the SDK
// version the root go.mod requires, so a build from a checkout generates
// skeletons that require the SDK the checkout is released with.
func TestDefaultSDKVersionIsTheRequirement(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	want := "\t" + SDKModule + " " + DefaultSDKVersion + "\n"
	if !strings.Contains(string(b), want) {
		t.Errorf("the root go.mod does not require %s %s:\n%s", SDKModule, DefaultSDKVersion, b)
	}
}

func TestGenerateErrors(t *testing.T) {
	tests := []struct {
		o    Options
		want string
	}{
		{Options{Name: "p", Hook: "classify"}, `invalid --hook "classify": want equivalence, classifier, fault`},
		{Options{Name: "P", Hook: "fault"}, `invalid NAME "P": only a-z, 0-9, '_' and '-' are allowed`},
		{Options{Name: "p", Hook: "fault", Module: "a b"}, `invalid --module "a b": character ' ' is not allowed`},
	}
	for _, tt := range tests {
		if _, err := Generate(tt.o); err == nil || err.Error() != tt.want {
			t.Errorf("Generate(%+v) = %v, want %q", tt.o, err, tt.want)
		}
	}
}

func TestWrite(t *testing.T) {
	files := []File{{"go.mod", []byte("module m\n")}, {"main.go", []byte("package main\n")}}
	root := t.TempDir()

	// A new directory, parents included.
	dir := filepath.Join(root, "a", "b")
	if err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "main.go")); err != nil || string(b) != "package main\n" {
		t.Errorf("main.go = %q, %v", b, err)
	}
	// The same directory again: refused, nothing touched.
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("// mine\n"), 0o644)
	err := Write(dir, files)
	if want := dir + " already exists and is not empty; choose another NAME or --dir"; err == nil || err.Error() != want {
		t.Errorf("second Write = %v, want %q", err, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "main.go")); string(b) != "// mine\n" {
		t.Errorf("main.go overwritten: %q", b)
	}
	// An existing empty directory is used.
	empty := filepath.Join(root, "empty")
	os.Mkdir(empty, 0o755)
	if err := Write(empty, files); err != nil {
		t.Errorf("empty directory: %v", err)
	}
	// A file is not a directory.
	file := filepath.Join(root, "file")
	os.WriteFile(file, nil, 0o644)
	if err := Write(file, files); err == nil || !strings.HasPrefix(err.Error(), file+": ") {
		t.Errorf("Write onto a file = %v, want an error naming it", err)
	}
}

// FuzzCheckName: an accepted NAME is a plugin name the host accepts and
// gives a skeleton whose go.mod declares example.com/NAME.
func FuzzCheckName(f *testing.F) {
	for _, s := range []string{"myplugin", "a", "con", "9x", "a.b", "über", "x-y_z", strings.Repeat("a", 65)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if CheckName(name) != nil {
			return
		}
		if len(name) < 1 || len(name) > 64 || name[0] < 'a' || name[0] > 'z' ||
			strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789_-") != "" {
			t.Fatalf("accepted %q, which the host refuses as a plugin name", name)
		}
		files, err := Generate(Options{Name: name, Hook: "classifier"})
		if err != nil {
			t.Fatalf("Generate(%q): %v", name, err)
		}
		if !strings.HasPrefix(string(files[0].Data), "module example.com/"+name+"\n") {
			t.Fatalf("go.mod of %q:\n%s", name, files[0].Data)
		}
	})
}

// FuzzCheckModule: an accepted module path never holds a character that
// would break the go.mod line, nor an empty or dot-edged element.
func FuzzCheckModule(f *testing.F) {
	for _, s := range []string{"example.com/m", "m", "a//b", "a b", "x/.y", "Aux", "a\nmodule b", "x~12"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		if CheckModule(path) != nil {
			return
		}
		if strings.ContainsAny(path, " \t\r\n\"'`\\") {
			t.Fatalf("accepted %q", path)
		}
		for _, elem := range strings.Split(path, "/") {
			if elem == "" || strings.HasPrefix(elem, ".") || strings.HasSuffix(elem, ".") {
				t.Fatalf("accepted %q with element %q", path, elem)
			}
		}
	})
}
