package e2e

// End-to-end tests of a run's record against its final report and of the
// processes of a run (behaviour §9.1, §9.4): a re-send still in flight when
// the agent ends, a proxy the agent started detached, a campaign killed by
// kill -9.

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// heldUpstream is a booking server (bash) whose second create_booking
// executes (a line in RUN/executions) and holds its answer until HOLD
// says: "http" kills the agent (RUN/agent.pid) and waits until the run's
// proxy is ending (a GET to its URL is answered 503); "record" kills the
// agent and waits until RUN/run.json exists; "orphan" writes its parent's
// (the proxy's) pid to MARKS/proxy.pid, creates MARKS/inflight and waits
// until RUN/run.json exists. So the re-send is in flight when the agent
// ends, and answered only once the campaign has stopped the proxy (http)
// or has written a record (record, orphan).
const heldUpstream = `
run=$1 hold=$2 marks=$3 n=0
while IFS= read -r line; do
  id=$(sed -n 's/.*"id": *\("[^"]*"\|-\{0,1\}[0-9][0-9]*\).*/\1/p' <<<"$line")
  case $line in
  *'"method":"initialize"'*)
    v=$(sed -n 's/.*"protocolVersion": *"\([^"]*\)".*/\1/p' <<<"$line")
    printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"%s","capabilities":{"tools":{}},"serverInfo":{"name":"held","version":"1"}}}\n' "$id" "$v";;
  *'"method":"tools/list"'*)
    printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"create_booking","inputSchema":{"type":"object"}}]}}\n' "$id";;
  *'"method":"tools/call"'*)
    n=$((n+1)); echo "$n" >>"$run/executions"
    if [ "$n" = 2 ]; then
      if [ "$hold" = orphan ]; then
        echo $PPID >"$marks/proxy.pid"; touch "$marks/inflight"
      else
        kill -9 "$(cat "$run/agent.pid")"
      fi
      if [ "$hold" = http ]; then
        url=$(sed -n 's/.*"url": *"\([^"]*\)".*/\1/p' "$run/mcp.json")
        until c=$(curl -s -o /dev/null -w '%{http_code}' -H 'Accept: text/event-stream' -H 'Mcp-Session-Id: probe' "$url"); [ "$c" = 503 ] || [ "$c" = 000 ]; do sleep 0.01; done
      else
        until [ -e "$run/run.json" ]; do sleep 0.01; done
      fi
    fi
    printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"booked B%s"}]}}\n' "$id" "$n";;
  *'"method":'*'"id":'*|*'"id":'*'"method":'*)
    printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}\n' "$id";;
  esac
done
`

// campaignFinalReport waits (bounded) until the run's report.json says finished
// and no process holds it, and returns its status, verdict and reason.
func campaignFinalReport(t *testing.T, runDir string) (status, verdict, reason string) {
	t.Helper()
	deadline := time.Now().Add(maxWait)
	for {
		var rep struct {
			Status  string `json:"status"`
			Verdict string `json:"verdict"`
			Report  struct {
				VerdictReason string `json:"verdictReason"`
			} `json:"report"`
		}
		b, err := os.ReadFile(filepath.Join(runDir, "report.json"))
		if err == nil && json.Unmarshal(b, &rep) == nil && rep.Status == "finished" || time.Now().After(deadline) {
			return rep.Status, rep.Verdict, rep.Report.VerdictReason
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A naive agent's re-send after F1 is in flight when the agent ends: the
// run's record is the final report's verdict, never one read from a
// report still running. Over HTTP the campaign stops the proxy first: the
// re-send's answer arrives while it ends and the run is FAIL, 2
// executions. Over stdio with a proxy the agent's client started detached
// (setsid), the campaign waits for its final report.
func TestCampaignRecordIsTheFinalReport(t *testing.T) {
	campaignNeedTools(t, "bash", "curl", "setsid", "sed")
	t.Parallel()
	bin := built(t, "agent-harness")
	plain := built(t, "agent-harness-plain")
	dir := t.TempDir()
	upstream := filepath.Join(dir, "held.sh")
	if err := os.WriteFile(upstream, []byte(heldUpstream), 0o755); err != nil {
		t.Fatal(err)
	}
	detach := filepath.Join(dir, "detach.sh")
	if err := os.WriteFile(detach, []byte("#!/bin/sh\necho $$ > \"$AGENT_HARNESS_RUN_DIR/proxy.pid\"\nexec setsid "+bin+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, transport, hold string
		agent                 string
		verdict               string
	}{
		{"http", "http", "http",
			`echo $$ > "$AGENT_HARNESS_RUN_DIR/agent.pid"; exec "$0" agent --behaviour naive --mcp-config "$AGENT_HARNESS_MCP_CONFIG"`, "FAIL"},
		{"stdio, detached proxy", "stdio", "record",
			`echo $$ > "$AGENT_HARNESS_RUN_DIR/agent.pid"; sed "s|\"command\": \"[^\"]*\"|\"command\": \"$1\"|" "$AGENT_HARNESS_MCP_CONFIG" > "$AGENT_HARNESS_RUN_DIR/detached.json"; exec "$0" agent --behaviour naive --mcp-config "$AGENT_HARNESS_RUN_DIR/detached.json"`, "NOT_TESTED"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			run := filepath.Join(out, "runs", "F1", "1")
			r := runCampaign(t, out, nil, "--out", out, "--runs", "1", "--scenarios", "F1", "--quiet", "--agent-transport", c.transport,
				"--upstream-command", "bash", "--upstream-arg", upstream, "--upstream-arg", run, "--upstream-arg", c.hold, "--upstream-arg", dir,
				"--", "sh", "-c", c.agent, plain, detach)
			status, verdict, reason := campaignFinalReport(t, run)
			if len(r.summary.Runs) != 1 {
				t.Fatalf("exit %d, %d records\nstderr:\n%s", r.code, len(r.summary.Runs), r.stderr)
			}
			rec := r.summary.Runs[0]
			if status != "finished" || rec.Verdict != verdict {
				t.Errorf("record %s (%s), final report %s %s (%s); want both %s", rec.Verdict, rec.Reason, status, verdict, reason, c.verdict)
			}
			if verdict != c.verdict {
				t.Errorf("final report %s, want %s: %s", verdict, c.verdict, reason)
			}
			if b, _ := os.ReadFile(filepath.Join(run, "executions")); string(b) != "1\n2\n" {
				t.Errorf("upstream executions %q, want 2", b)
			}
			if c.transport == "stdio" {
				if pid := readPid(t, filepath.Join(run, "proxy.pid")); !processGone(pid) {
					t.Errorf("the detached proxy %d still runs after the campaign", pid)
				}
			}
		})
	}
}

// campaignGoneWithin reports whether process pid has ended within d.
func campaignGoneWithin(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// campaignAwaitFile waits (bounded) until path exists.
func campaignAwaitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(maxWait)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// kill -9 of a campaign while a naive agent's re-send is in flight: no
// process of the killed campaign lives on (the agent and the proxy the
// campaign started over HTTP have a parent-death signal), and none touches
// the resumed run (behaviour §9.4). The resumed attempt's agent exits at
// once without starting a proxy, so its run directory must not get a
// report or a trace; the earlier attempt's upstream would answer its
// re-send as soon as the resumed run has its run.json, and the old proxy
// would then write its FAIL report there.
func TestCampaignKilledLeavesNoWriter(t *testing.T) {
	campaignNeedTools(t, "bash", "sed")
	t.Parallel()
	bin := built(t, "agent-harness")
	plain := built(t, "agent-harness-plain")
	dir := t.TempDir()
	upstream := filepath.Join(dir, "held.sh")
	if err := os.WriteFile(upstream, []byte(heldUpstream), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			marks := t.TempDir()
			out := filepath.Join(t.TempDir(), "out")
			run := filepath.Join(out, "runs", "F1", "1")
			args := []string{"campaign", "--out", out, "--runs", "1", "--scenarios", "F1", "--quiet", "--agent-transport", transport,
				"--upstream-command", "bash", "--upstream-arg", upstream, "--upstream-arg", run, "--upstream-arg", "orphan", "--upstream-arg", marks,
				"--", "sh", "-c", `[ -e "$1/second" ] && exit 0; exec "$0" agent --behaviour naive --mcp-config "$AGENT_HARNESS_MCP_CONFIG"`, plain, marks}
			cmd := exec.Command(bin, args...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			campaignAwaitFile(t, filepath.Join(marks, "inflight"))
			proxy := readPid(t, filepath.Join(marks, "proxy.pid"))
			t.Cleanup(func() { syscall.Kill(proxy, syscall.SIGKILL) })
			if cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(proxy), "cmdline")); transport == "http" && !bytes.Contains(cmdline, []byte("\x00--exit-when-idle=10m10s")) {
				t.Errorf("the campaign's proxy has no idle exit: %q", cmdline)
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			if transport == "http" && !campaignGoneWithin(proxy, 10*time.Second) {
				t.Errorf("the proxy %d the killed campaign started still runs", proxy)
			}
			if err := os.WriteFile(filepath.Join(marks, "second"), nil, 0o666); err != nil {
				t.Fatal(err)
			}
			r := runCampaign(t, out, nil, args[1:]...)
			if len(r.summary.Runs) != 1 {
				t.Fatalf("resume: exit %d, %d records\nstderr:\n%s", r.code, len(r.summary.Runs), r.stderr)
			}
			// The earlier attempt's proxy has had every chance to write.
			if !campaignGoneWithin(proxy, maxWait) {
				t.Fatalf("the killed campaign's proxy %d still runs after the resume", proxy)
			}
			rec := r.summary.Runs[0]
			if rec.Verdict != "NOT_TESTED" || !strings.Contains(rec.Reason, map[string]string{"stdio": "never started the proxy", "http": "called no tool"}[transport]) {
				t.Errorf("resumed record %s: %s", rec.Verdict, rec.Reason)
			}
			// Over stdio the resumed attempt started no proxy: no report, no
			// trace; over HTTP the campaign's proxy of the resumed attempt
			// saw no call.
			for _, f := range []string{"report.json", "trace.jsonl"} {
				b, err := os.ReadFile(filepath.Join(run, f))
				if err == nil && (transport == "stdio" || bytes.Contains(b, []byte("create_booking"))) {
					t.Errorf("the resumed run has a %s the killed attempt wrote:\n%.300s", f, b)
				}
			}
		})
	}
}
