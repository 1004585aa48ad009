package e2e

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryTestIsParallel keeps the package's wall time what BENCHMARKS.md
// says: its tests wait on the processes they start, so each calls
// t.Parallel() and waitBoundParallelism runs twice as many as there
// are cores. A sequential test here runs alone while every other test
// waits for it; the tests in sequential do so on purpose.
func TestEveryTestIsParallel(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*_test.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("test files: %v, %v", files, err)
	}
	tests, listed := 0, 0
	for _, file := range files {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || !strings.HasPrefix(fd.Name.Name, "Test") || fd.Name.Name == "TestMain" {
				continue
			}
			tests++
			if _, ok := sequential[fd.Name.Name]; ok {
				listed++
				if callsParallel(fd) {
					t.Errorf("%s: %s calls t.Parallel(); it is listed as sequential", file, fd.Name.Name)
				}
				continue
			}
			if !callsParallel(fd) {
				t.Errorf("%s: %s does not call t.Parallel()", file, fd.Name.Name)
			}
		}
	}
	if listed != len(sequential) {
		t.Errorf("%d of the %d tests listed as sequential exist; a renamed one must be renamed in the list", listed, len(sequential))
	}
	if tests < 100 {
		t.Errorf("found %d tests; the package has over 200", tests)
	}
}

// sequential are the tests that run alone, each with why: what they
// assert is a deadline measured against other work, which a loaded machine
// could move across it.
var sequential = map[string]string{
	"TestProxyCallTimeout":                  "--upstream-timeout 1s against a call of 2.5 s",
	"TestPluginFaultPackEndToEnd":           "the fault pack's 300 ms delays",
	"TestPluginHostileEndToEnd":             "the hostile plugins' 1 s hook deadline",
	"TestStatePluginHostile":                "--plugin-timeout against a state hook that stalls",
	"TestHTTPSessionIdleE2E":                "--session-idle 200ms against the gap between requests",
	"TestCampaignAgentNeverConnectsOrHangs": "--agent-timeout against an agent that hangs",
}

// callsParallel reports whether one of fd's own statements (not one in a
// closure or a block) is PARAM.Parallel().
func callsParallel(fd *ast.FuncDecl) bool {
	if len(fd.Type.Params.List) != 1 || len(fd.Type.Params.List[0].Names) != 1 {
		return false
	}
	param := fd.Type.Params.List[0].Names[0].Name
	for _, st := range fd.Body.List {
		es, ok := st.(*ast.ExprStmt)
		if !ok {
			continue
		}
		call, ok := es.X.(*ast.CallExpr)
		if !ok {
			continue
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Parallel" {
			if recv, ok := sel.X.(*ast.Ident); ok && recv.Name == param {
				return true
			}
		}
	}
	return false
}
