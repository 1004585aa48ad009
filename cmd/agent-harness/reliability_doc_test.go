package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every test RELIABILITY.md cites exists, so the list of hostile inputs
// and the tests that prove them cannot drift apart.
func TestReliabilityDocCitesExistingTests(t *testing.T) {
	root := repoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "RELIABILITY.md"))
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
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
			for _, m := range decl.FindAllSubmatch(b, -1) {
				have[string(m[1])] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cited := regexp.MustCompile("`[^`]*` ((?:(?:Test|Fuzz|Benchmark)\\w+(?:, )?)+)")
	n := 0
	for _, m := range cited.FindAllStringSubmatch(string(doc), -1) {
		for _, name := range strings.Split(m[1], ", ") {
			n++
			if !have[name] {
				t.Errorf("RELIABILITY.md cites %s, which no test file declares", name)
			}
		}
	}
	if n < 20 {
		t.Errorf("found only %d cited tests in RELIABILITY.md: the pattern no longer matches the document", n)
	}
}
