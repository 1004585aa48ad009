package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mrtrRun is what TestProxyMultiRoundTripGoSDK observes of one session.
type mrtrRun struct {
	results  []*mcp.CallToolResult
	verdict  string
	ops      []mrtrOp
	reserved []string // the upstream's ground truth, one line per reservation
}

type mrtrOp struct {
	Attempts   int    `json:"attempts"`
	Executions int    `json:"executions"`
	Outcome    string `json:"outcome"`
	AttemptLog []struct {
		Outcome string `json:"outcome"`
		Fault   string `json:"fault"`
	} `json:"attemptLog"`
}

// mrtrSession runs a go-sdk client (protocol 2026-07-28; its multi-round-trip
// middleware answers an input_required result from its elicitation
// handler and sends the follow-up itself) through the proxy in front of
// sdkupstream --elicit, calling create_reservation calls times.
func mrtrSession(t *testing.T, action string, calls int, flags ...string) mrtrRun {
	t.Helper()
	dir := t.TempDir()
	truth, reportFile := filepath.Join(dir, "reserved.log"), filepath.Join(dir, "report.json")
	args := append([]string{"proxy", "--upstream-command", built(t, "sdkupstream"),
		"--upstream-arg=--elicit", "--upstream-arg", truth, "--audit-tools", "off", "--report-file", reportFile}, flags...)
	cmd := exec.Command(built(t, "agent-harness"), args...)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-mrtr-agent", Version: "0.0.1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: action}, nil
		},
	})
	ctx := t.Context()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: maxWait}, nil)
	if err != nil {
		t.Fatalf("connect: %v; stderr:\n%s", err, stderr.String())
	}
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %q; this test is about 2026-07-28 multi-round-trip", v)
	}
	var run mrtrRun
	for i := range calls {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_reservation", Arguments: map[string]any{"room": "12"}})
		if err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		run.results = append(run.results, res)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit %d; stderr:\n%s", code, stderr.String())
	}
	b, err := os.ReadFile(reportFile)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Verdict string `json:"verdict"`
		Report  struct {
			Operations []mrtrOp `json:"operations"`
		} `json:"report"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	run.verdict, run.ops = rep.Verdict, rep.Report.Operations
	if lines, err := os.ReadFile(truth); err == nil {
		run.reserved = strings.Fields(strings.ReplaceAll(string(lines), "reserved ", ""))
	} else if !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return run
}

func (o mrtrOp) outcomes() []string {
	var out []string
	for _, a := range o.AttemptLog {
		s := a.Outcome
		if a.Fault != "" {
			s += "/" + a.Fault
		}
		out = append(out, s)
	}
	return out
}

// TestProxyMultiRoundTripGoSDK (issue 21 item 3, behaviour §4.12): a real
// go-sdk client and server doing a multi-round-trip tools/call through the
// proxy. The first leg (input_required) and the client's follow-up are one
// attempt; F1 fires on the completing leg, F2 on the first; the report
// equals the upstream's ground truth. Before, every such run was
// NOT_TESTED.
func TestProxyMultiRoundTripGoSDK(t *testing.T) {
	t.Parallel()
	t.Run("one attempt", func(t *testing.T) {
		run := mrtrSession(t, "accept", 1)
		if run.results[0].IsError {
			t.Errorf("result %+v, want the reservation", run.results[0])
		}
		if !slices.Equal(run.reserved, []string{"12"}) {
			t.Fatalf("ground truth %q, want one reservation", run.reserved)
		}
		if run.verdict != "PASS" || len(run.ops) != 1 || run.ops[0].Attempts != 1 || run.ops[0].Executions != 1 {
			t.Errorf("verdict %s operations %+v, want PASS with one attempt executed once", run.verdict, run.ops)
		}
	})
	t.Run("F1 on the completing leg", func(t *testing.T) {
		run := mrtrSession(t, "accept", 2, "--scenario", "F1")
		if !run.results[0].IsError || run.results[1].IsError {
			t.Errorf("results %+v %+v, want the timeout, then the reservation", run.results[0], run.results[1])
		}
		if !slices.Equal(run.reserved, []string{"12", "12"}) {
			t.Fatalf("ground truth %q, want two reservations", run.reserved)
		}
		if run.verdict != "FAIL" || len(run.ops) != 1 || run.ops[0].Executions != 2 ||
			!slices.Equal(run.ops[0].outcomes(), []string{"executed/timeout", "executed"}) {
			t.Errorf("verdict %s operations %+v, want FAIL: two attempts, the first a ghost write", run.verdict, run.ops)
		}
	})
	t.Run("F2 on the first leg", func(t *testing.T) {
		run := mrtrSession(t, "accept", 2, "--scenario", "F2")
		if !run.results[0].IsError || run.results[1].IsError {
			t.Errorf("results %+v %+v, want the 429, then the reservation", run.results[0], run.results[1])
		}
		if !slices.Equal(run.reserved, []string{"12"}) {
			t.Fatalf("ground truth %q, want one reservation", run.reserved)
		}
		if len(run.ops) != 1 || run.ops[0].Executions != 1 ||
			!slices.Equal(run.ops[0].outcomes(), []string{"injected-not-executed/rate_limit", "executed"}) {
			t.Errorf("operations %+v, want the 429 not executed, then one execution", run.ops)
		}
	})
	t.Run("declined", func(t *testing.T) {
		run := mrtrSession(t, "decline", 1)
		if !run.results[0].IsError || len(run.reserved) != 0 {
			t.Fatalf("result %+v, ground truth %q; want the upstream's refusal and no reservation", run.results[0], run.reserved)
		}
		if len(run.ops) != 1 || run.ops[0].Attempts != 1 || run.ops[0].Outcome != "UPSTREAM_REJECTED" {
			t.Errorf("operations %+v, want one UPSTREAM_REJECTED attempt", run.ops)
		}
	})
}
