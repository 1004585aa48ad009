// Package docs holds tests that keep the repository's prose equal to its code: the map of
// the code in RATIONALE.md lists exactly the packages of the module and of sdk, and every
// repository path, link target and anchor, Go file and exported package-qualified Go name
// that RATIONALE.md, BENCHMARKS.md, README.md, RELIABILITY.md and docs/*.md mention exists.
// A new package needs its row in the map.
package docs

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// root is the repository root: the directory above this package's with the main go.mod.
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("repository root: %v", err)
	}
	return dir
}

// packages lists the module's and the sdk module's packages as paths from the repository
// root (`internal/relay`, `sdk/abi`), as `go list ./...` prints them.
func packages(t *testing.T, repo string) []string {
	t.Helper()
	var all []string
	for _, mod := range []struct{ dir, prefix string }{{".", ""}, {"sdk", "sdk"}} {
		cmd := exec.Command("go", "list", "-e", "-f", "{{.Dir}}", "./...")
		cmd.Dir = filepath.Join(repo, mod.dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list in %s: %v: %s", mod.dir, err, stderr.Bytes())
		}
		for _, dir := range strings.Fields(string(out)) {
			rel, err := filepath.Rel(repo, dir)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, filepath.ToSlash(rel))
		}
	}
	sort.Strings(all)
	return all
}

func read(t *testing.T, repo, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repo, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var codeSpan = regexp.MustCompile("`([^`\n]+)`")

// codeMap returns the packages the first column of RATIONALE.md's "Map of the code" table
// lists, each with its line number.
func codeMap(t *testing.T, text string) map[string]int {
	t.Helper()
	_, after, ok := strings.Cut(text, "\n## Map of the code\n")
	if !ok {
		t.Fatal(`RATIONALE.md has no "## Map of the code" section`)
	}
	before := strings.Count(text[:len(text)-len(after)], "\n") + 1
	listed := map[string]int{}
	for i, line := range strings.Split(after, "\n") {
		if strings.HasPrefix(line, "#") {
			break
		}
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(line, "|"), "|")
		for _, m := range codeSpan.FindAllStringSubmatch(first, -1) {
			listed[m[1]] = before + i
		}
	}
	if len(listed) == 0 {
		t.Fatal("RATIONALE.md's map of the code lists no package")
	}
	return listed
}

// TestCodeMapListsEveryPackage keeps the map of the code in RATIONALE.md equal to the
// package list: every package of the module and of sdk is in the table's first column, and
// every package listed there exists.
func TestCodeMapListsEveryPackage(t *testing.T) {
	repo := root(t)
	pkgs := packages(t, repo)
	listed := codeMap(t, read(t, repo, "RATIONALE.md"))
	for _, p := range pkgs {
		if _, ok := listed[p]; !ok {
			t.Errorf("RATIONALE.md: the map of the code does not list package %s", p)
		}
	}
	for p, line := range listed {
		if !slices.Contains(pkgs, p) {
			t.Errorf("RATIONALE.md:%d: the map of the code lists %s, which is not a package", line, p)
		}
	}
}

// documents are the files whose paths and names are checked.
func documents(t *testing.T, repo string) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"RATIONALE.md", "BENCHMARKS.md", "README.md", "RELIABILITY.md"}
	for _, d := range docs {
		rel, _ := filepath.Rel(repo, d)
		names = append(names, filepath.ToSlash(rel))
	}
	return names
}

var (
	// repoPath is a code span naming a path in the repository.
	repoPath = regexp.MustCompile(`^(?:internal|cmd|testdata|host|builtin|plugins|sdk)/[A-Za-z0-9_./-]*$`)
	// link is a Markdown link's target.
	link = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// sdkTag is the guest SDK's release tag (`sdk/v0.1.0`, `sdk/vX.Y.Z`), not a path.
	sdkTag = regexp.MustCompile(`^sdk/v([0-9]|X)`)
	// goFile is a code span naming a Go file by its base name (`calls.go`, `proxyhttp.go:12`).
	goFile = regexp.MustCompile(`^([A-Za-z0-9_]+\.go)(?::[0-9-]+)?$`)
	// qualified is a code span naming a package-qualified Go name (`relay.Options.RawIO`,
	// `wire.ParseEnvelope`), optionally called.
	qualified = regexp.MustCompile(`^([a-z][a-z0-9]*)\.([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_]*))?(?:\(\))?$`)
)

// mention is one thing a document names, with where.
type mention struct {
	doc  string
	line int
	text string
}

func mentions(t *testing.T, repo string, re *regexp.Regexp, group int) []mention {
	t.Helper()
	var all []mention
	for _, doc := range documents(t, repo) {
		for i, line := range strings.Split(read(t, repo, doc), "\n") {
			for _, m := range re.FindAllStringSubmatch(line, -1) {
				all = append(all, mention{doc, i + 1, m[group]})
			}
		}
	}
	return all
}

// TestMentionedPathsExist: every repository path a document names in a code span
// (`internal/trace/trace.schema.json`, `builtin/scenarios.All` for the package), and every
// relative link target with its anchor, exists. A code span is read from the repository root, a link
// from the document's directory; a `:N` line suffix or a `#anchor` is not part of the path,
// and `…` or `*` marks a pattern, which is not checked.
func TestMentionedPathsExist(t *testing.T) {
	repo := root(t)
	for _, m := range mentions(t, repo, codeSpan, 1) {
		p := m.text
		if i := strings.IndexByte(p, ' '); i >= 0 {
			p = p[:i]
		}
		if !repoPath.MatchString(p) || strings.ContainsAny(p, "*…") || sdkTag.MatchString(p) {
			continue
		}
		p = trimLine(p)
		if dir, name, ok := cutLast(p, "."); ok && name != "" && unicode.IsUpper(rune(name[0])) {
			p = dir // `builtin/scenarios.All`: a package's exported name
		}
		if _, err := os.Stat(filepath.Join(repo, p)); err != nil {
			t.Errorf("%s:%d: `%s` does not exist", m.doc, m.line, m.text)
		}
	}
	anchorsOf := map[string]map[string]bool{}
	for _, m := range mentions(t, repo, link, 1) {
		if strings.Contains(m.text, "://") || strings.HasPrefix(m.text, "mailto:") {
			continue
		}
		target, anchor, _ := strings.Cut(m.text, "#")
		file := m.doc
		if target != "" {
			file = filepath.ToSlash(filepath.Join(filepath.Dir(m.doc), trimLine(target)))
			if _, err := os.Stat(filepath.Join(repo, file)); err != nil {
				t.Errorf("%s:%d: link target %s does not exist", m.doc, m.line, m.text)
				continue
			}
		}
		if anchor == "" || !strings.HasSuffix(file, ".md") || strings.HasPrefix(file, "..") {
			continue
		}
		if anchorsOf[file] == nil {
			anchorsOf[file] = anchors(read(t, repo, file))
		}
		if !anchorsOf[file][anchor] {
			t.Errorf("%s:%d: link %s: %s has no anchor #%s", m.doc, m.line, m.text, file, anchor)
		}
	}
}

var (
	explicitAnchor = regexp.MustCompile(`<a id="([^"]+)">`)
	linkText       = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	notSlug        = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// anchors are a Markdown file's link targets: `<a id>` elements and the headings' slugs as
// GitHub makes them (the rendered text lower-cased, punctuation dropped, spaces to hyphens,
// a repeated slug numbered -1, -2 …).
func anchors(text string) map[string]bool {
	set := map[string]bool{}
	for _, m := range explicitAnchor.FindAllStringSubmatch(text, -1) {
		set[m[1]] = true
	}
	fence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(line, "#"))
		h = linkText.ReplaceAllString(h, "$1")
		slug := strings.ReplaceAll(notSlug.ReplaceAllString(strings.ToLower(h), ""), " ", "-")
		s := slug
		for n := 1; set[s]; n++ {
			s = fmt.Sprintf("%s-%d", slug, n)
		}
		set[s] = true
	}
	return set
}

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// trimLine drops a `:N` or `:N-M` line suffix.
func trimLine(p string) string {
	if i := strings.LastIndexByte(p, ':'); i >= 0 && strings.Trim(p[i+1:], "0123456789-") == "" {
		return p[:i]
	}
	return p
}

// TestMentionedGoFilesExist: a Go file a document names by its base name (`calls.go`)
// is a file somewhere in the repository, so no document describes a deleted file as live
// (BENCHMARKS.md is not checked: its measurements name the code as it was then).
func TestMentionedGoFilesExist(t *testing.T) {
	repo := root(t)
	files := map[string]bool{}
	err := filepath.WalkDir(repo, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".go") {
			files[d.Name()] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mentions(t, repo, codeSpan, 1) {
		g := goFile.FindStringSubmatch(m.text)
		if g != nil && !files[g[1]] && m.doc != "BENCHMARKS.md" {
			t.Errorf("%s:%d: `%s`: no Go file of that name in the repository", m.doc, m.line, m.text)
		}
	}
}

// decls are the names a package declares: top-level funcs, types, vars and consts, and
// per type its methods and struct fields.
type decls struct {
	top     map[string]bool
	members map[string]map[string]bool
}

func parsePackage(t *testing.T, dir string) decls {
	t.Helper()
	d := decls{top: map[string]bool{}, members: map[string]map[string]bool{}}
	member := func(typ, name string) {
		if d.members[typ] == nil {
			d.members[typ] = map[string]bool{}
		}
		d.members[typ][name] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Recv == nil {
					d.top[decl.Name.Name] = true
					continue
				}
				member(receiver(decl.Recv.List[0].Type), decl.Name.Name)
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						d.top[spec.Name.Name] = true
						if st, ok := spec.Type.(*ast.StructType); ok {
							for _, f := range st.Fields.List {
								for _, n := range f.Names {
									member(spec.Name.Name, n.Name)
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							d.top[n.Name] = true
						}
					}
				}
			}
		}
	}
	return d
}

func receiver(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// TestMentionedGoNamesExist: an exported package-qualified name a document writes in a
// code span (`wire.ParseEnvelope`, `relay.Options.Upstream`, `httpupstream.Conn.oneMessage`)
// is declared in that package, when the qualifier is the name of exactly one package of
// the repository. Not checked: a lower-case second part (`report.verdict` is a report
// field, `campaign.json` a file), a qualifier that is no package's name
// (`session.routeResponse`), and BENCHMARKS.md, whose measurements name the code as it was
// when they were taken.
func TestMentionedGoNamesExist(t *testing.T) {
	repo := root(t)
	byName := map[string][]string{}
	for _, p := range packages(t, repo) {
		base := filepath.Base(p)
		byName[base] = append(byName[base], p)
	}
	cache := map[string]decls{}
	for _, m := range mentions(t, repo, codeSpan, 1) {
		q := qualified.FindStringSubmatch(m.text)
		if q == nil || len(byName[q[1]]) != 1 || !unicode.IsUpper(rune(q[2][0])) || m.doc == "BENCHMARKS.md" {
			continue
		}
		dir := byName[q[1]][0]
		d, ok := cache[dir]
		if !ok {
			d = parsePackage(t, filepath.Join(repo, dir))
			cache[dir] = d
		}
		switch {
		case !d.top[q[2]]:
			t.Errorf("%s:%d: `%s`: package %s declares no %s", m.doc, m.line, m.text, dir, q[2])
		case q[3] != "" && !d.members[q[2]][q[3]]:
			t.Errorf("%s:%d: `%s`: %s.%s has no field or method %s", m.doc, m.line, m.text, q[1], q[2], q[3])
		}
	}
}
