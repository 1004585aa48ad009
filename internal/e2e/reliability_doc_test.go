package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every test RELIABILITY.md cites exists in the package the citation
// names ("`internal/judge` TestX"; `cmd` is cmd/agent-harness), so the
// list of hostile inputs and the tests that prove them cannot drift apart,
// and a test moved to another package moves its citation too.
func TestReliabilityDocCitesExistingTests(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "RELIABILITY.md"))
	if err != nil {
		t.Fatal(err)
	}
	// have maps a package directory (slash-separated, relative to the
	// root) to the tests, fuzz targets and benchmarks its test files
	// declare.
	have := map[string]map[string]bool{}
	decl := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)\w+)\(`)
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, "_test.go") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			pkg := filepath.ToSlash(rel)
			if have[pkg] == nil {
				have[pkg] = map[string]bool{}
			}
			for _, m := range decl.FindAllSubmatch(b, -1) {
				have[pkg][string(m[1])] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cited := regexp.MustCompile("`([^`]*)` ((?:(?:Test|Fuzz|Benchmark)\\w+(?:, )?)+)")
	n := 0
	for _, m := range cited.FindAllStringSubmatch(string(doc), -1) {
		pkg := m[1]
		if pkg == "cmd" {
			pkg = "cmd/agent-harness"
		}
		for _, name := range strings.Split(strings.TrimSuffix(m[2], ", "), ", ") {
			n++
			if !have[pkg][name] {
				where := []string{}
				for p, names := range have {
					if names[name] {
						where = append(where, p)
					}
				}
				t.Errorf("RELIABILITY.md cites %s in `%s`, which no test file there declares (declared in: %v)", name, m[1], where)
			}
		}
	}
	if n < 20 {
		t.Errorf("found only %d cited tests in RELIABILITY.md: the pattern no longer matches the document", n)
	}
}
