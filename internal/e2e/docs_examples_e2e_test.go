package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A docExample is one shell block of a Markdown file with the markers
// before it:
//
//	<!-- needs: REASON -->   not run: it needs something the test does not
//	                         have (your own MCP server, the checkout, npm …)
//	<!-- exit: N -->         the block's exit status (default 0)
//	<!-- stdout: TEXT -->    its stdout contains TEXT (repeatable)
type docExample struct {
	file   string // path from the repository root
	line   int    // line of the opening fence, from 1
	script string
	needs  string // non-empty: not run
	exit   int
	stdout []string
}

// shellInfo are the info strings of the fenced blocks that are shell.
var shellInfo = []string{"sh", "bash", "shell", "console", "zsh"}

var docMarker = regexp.MustCompile(`^<!--\s*(needs|exit|stdout):\s*(.*?)\s*-->$`)

// docExamples returns the shell blocks of the Markdown text in order.
// A marker is an HTML comment on the lines just above the fence (blank
// lines between are allowed); an unknown marker word, an empty needs
// reason or a bad exit code is an error, so a typo cannot silently turn a
// block into one that is not run.
func docExamples(file, text string) ([]docExample, error) {
	lines := strings.Split(text, "\n")
	var out []docExample
	for i := 0; i < len(lines); i++ {
		fence, ok := strings.CutPrefix(lines[i], "```")
		if !ok {
			continue
		}
		info, _, _ := strings.Cut(strings.TrimSpace(fence), " ")
		start := i
		var body []string
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			body = append(body, lines[i])
		}
		if !slices.Contains(shellInfo, info) {
			continue
		}
		ex := docExample{file: file, line: start + 1, script: strings.Join(body, "\n") + "\n"}
		for j := start - 1; j >= 0; j-- {
			l := strings.TrimSpace(lines[j])
			if l == "" {
				continue
			}
			if !strings.HasPrefix(l, "<!--") {
				break
			}
			m := docMarker.FindStringSubmatch(l)
			if m == nil {
				return nil, fmt.Errorf("%s:%d: comment %q before a shell block is not a docs-test marker (needs:, exit:, stdout:)", file, j+1, l)
			}
			switch m[1] {
			case "needs":
				if m[2] == "" {
					return nil, fmt.Errorf("%s:%d: needs: without a reason", file, j+1)
				}
				ex.needs = m[2]
			case "exit":
				n, err := strconv.Atoi(m[2])
				if err != nil || n < 0 || n > 255 {
					return nil, fmt.Errorf("%s:%d: exit: %q is not an exit status", file, j+1, m[2])
				}
				ex.exit = n
			case "stdout":
				ex.stdout = append(ex.stdout, m[2])
			}
		}
		out = append(out, ex)
	}
	return out, nil
}

// TestDocsExamplesParse: the markers are read as documented, and a
// misspelt one is an error.
func TestDocsExamplesParse(t *testing.T) {
	t.Parallel()
	text := "intro\n\n<!-- needs: your own MCP server -->\n```sh\nnode server.js\n```\n\n" +
		"<!-- exit: 3 -->\n<!-- stdout: NOT_TESTED -->\n\n```sh\nagent-harness report r.json\n```\n" +
		"```json\n{}\n```\n```\nplain\n```\n```bash\ntrue\n```\n"
	got, err := docExamples("x.md", text)
	if err != nil {
		t.Fatal(err)
	}
	want := []docExample{
		{file: "x.md", line: 4, script: "node server.js\n", needs: "your own MCP server"},
		{file: "x.md", line: 11, script: "agent-harness report r.json\n", exit: 3, stdout: []string{"NOT_TESTED"}},
		{file: "x.md", line: 20, script: "true\n"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d blocks %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.file != w.file || g.line != w.line || g.script != w.script || g.needs != w.needs || g.exit != w.exit || !slices.Equal(g.stdout, w.stdout) {
			t.Errorf("block %d = %+v, want %+v", i, g, w)
		}
	}
	for _, bad := range []string{
		"<!-- need: a server -->\n```sh\nx\n```\n",
		"<!-- needs: -->\n```sh\nx\n```\n",
		"<!-- exit: one -->\n```sh\nx\n```\n",
	} {
		if _, err := docExamples("bad.md", bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestDocsExamples runs every shell block of README.md and docs/*.md that
// is not marked as needing what the test does not have: the blocks of one
// file in order, in one temporary directory, each with `bash -e -o
// pipefail`, with the built binary first on PATH as agent-harness, each
// within two minutes. It checks the exit status and stdout the markers
// state, and reports the wall time of the README's blocks (the tour).
func TestDocsExamples(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("the docs' shell blocks need bash")
	}
	root := repoRoot(t)
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{filepath.Join(root, "README.md")}, files...)

	bin := filepath.Join(t.TempDir(), "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// The plain build: a campaign of the tour starts 150 processes, which
	// the race detector's start-up cost would dominate.
	if err := os.Symlink(built(t, "agent-harness-plain"), filepath.Join(bin, "agent-harness")); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	ran := 0
	for _, path := range files {
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		examples, err := docExamples(rel, string(b))
		if err != nil {
			t.Error(err)
			continue
		}
		dir := t.TempDir()
		began := time.Now()
		for _, ex := range examples {
			if ex.needs != "" {
				t.Logf("%s:%d: not run, needs %s", ex.file, ex.line, ex.needs)
				continue
			}
			ran++
			if !runDocExample(t, bash, dir, env, ex) {
				break // the next blocks build on this one
			}
		}
		if rel == "README.md" {
			t.Logf("README.md: the runnable blocks (the tour) took %v", time.Since(began).Round(time.Millisecond))
		}
	}
	if ran == 0 {
		t.Error("no shell block was run: the extraction no longer matches the documents")
	}
}

// runDocExample runs one block and reports whether it did what its
// markers say.
func runDocExample(t *testing.T, bash, dir string, env []string, ex docExample) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "-e", "-o", "pipefail", "-c", ex.script)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = nil
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr) && exitErr.Exited():
		code = exitErr.ExitCode()
	default:
		t.Errorf("%s:%d: %v (timeout 2m)\nscript:\n%s\nstdout:\n%s\nstderr:\n%s", ex.file, ex.line, err, ex.script, &stdout, &stderr)
		return false
	}
	ok := true
	if code != ex.exit {
		t.Errorf("%s:%d: exit %d, the document says %d (mark a block the test cannot run with <!-- needs: … -->)\nscript:\n%s\nstdout:\n%s\nstderr:\n%s",
			ex.file, ex.line, code, ex.exit, ex.script, &stdout, &stderr)
		ok = false
	}
	for _, want := range ex.stdout {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("%s:%d: stdout lacks %q\nstdout:\n%s", ex.file, ex.line, want, &stdout)
			ok = false
		}
	}
	return ok
}
