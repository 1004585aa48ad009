# Measures --state-every-write per call (BENCHMARKS.md, issue 22): 1,000 sequential
# create_booking calls through the proxy over the test upstream, without a probe, with
# before/after snapshots only, and with a snapshot after every write. Build first:
#   go build -o /tmp/ah-state ./cmd/agent-harness && go build -o /tmp/ah-up ./testdata/upstream
import subprocess, json, time, sys, os, tempfile
def run(extra, n=1000):
    d = tempfile.mkdtemp()
    args = ["/tmp/ah-state","proxy","--audit-tools","off","--quiet","--upstream-cwd",d,"--upstream-env-var","UPSTREAM_TOTALS_FILE="+d+"/t.json"] + extra + ["--upstream-command","/tmp/ah-up"]
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
    def req(i, m, params):
        p.stdin.write(json.dumps({"jsonrpc":"2.0","id":i,"method":m,"params":params})+"\n"); p.stdin.flush()
        while True:
            l = json.loads(p.stdout.readline())
            if l.get("id")==i: return l
    req(1,"initialize",{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}})
    p.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    req(2,"tools/list",{})
    t=time.perf_counter()
    for i in range(n):
        req(10+i,"tools/call",{"name":"create_booking","arguments":{"room":str(i)}})
    el=time.perf_counter()-t
    p.stdin.close(); p.wait()
    return el/n*1000
probe = "cat t.json 2>/dev/null || echo '{\"create_booking\":0}'"
for rnd in range(3):
    a = run([])
    b = run(["--state-command",probe,"--state-map","create_booking=create_booking"])
    c = run(["--state-command",probe,"--state-map","create_booking=create_booking","--state-every-write"])
    print(f"round {rnd+1}: no probe {a:.3f} ms/call, probe before/after {b:.3f}, --state-every-write {c:.3f} ms/call")
