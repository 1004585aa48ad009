package e2e

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/report"
	"github.com/cuonztech/agent-harness/internal/reportfile"
)

// benchWrites is the session length of BenchmarkReportFileSession.
const benchWrites = 5000

// benchWindow is how many calls each "at N writes" mean covers: calls
// 1–100 and calls 4901–5000.
const benchWindow = 100

// benchSession is one MCP session over pipes, used as a stop watch.
type benchSession struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Reader
	calls int
}

func startBenchSession(b *testing.B, bin string, args ...string) *benchSession {
	b.Helper()
	s := &benchSession{cmd: exec.Command(bin, args...)}
	var err error
	if s.in, err = s.cmd.StdinPipe(); err != nil {
		b.Fatal(err)
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	s.out = bufio.NewReaderSize(stdout, 1<<20)
	if err := s.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	s.roundTrip(b, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	io.WriteString(s.in, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`+"\n")
	return s
}

// roundTrip sends one request and reads lines up to its response (the
// benchmark's calls produce no notifications).
func (s *benchSession) roundTrip(b *testing.B, line string) {
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		b.Fatal(err)
	}
	if _, err := s.out.ReadSlice('\n'); err != nil && err != bufio.ErrBufferFull {
		b.Fatal(err)
	}
}

// write sends the session's next distinct write and returns its duration.
func (s *benchSession) write(b *testing.B) time.Duration {
	s.calls++
	line := `{"jsonrpc":"2.0","id":` + strconv.Itoa(s.calls) + `,"method":"tools/call","params":{"name":"create_booking","arguments":{"room":"r` + strconv.Itoa(s.calls) + `","date":"2026-11-03"}}}`
	start := time.Now()
	s.roundTrip(b, line)
	return time.Since(start)
}

func (s *benchSession) close(b *testing.B) {
	s.in.Close()
	if err := s.cmd.Wait(); err != nil {
		b.Fatalf("session exit: %v", err)
	}
}

// windows sum the per-call times over calls 1–100 and the last 100, and
// keep them for medians.
type windows struct {
	first, last       time.Duration
	firstAll, lastAll []time.Duration
}

func (w *windows) add(i int, d time.Duration) {
	switch {
	case i < benchWindow:
		w.first += d
		w.firstAll = append(w.firstAll, d)
	case i >= benchWrites-benchWindow:
		w.last += d
		w.lastAll = append(w.lastAll, d)
	}
}

// medians returns the median per-call times of both windows in ms.
func (w *windows) medians() (first, last float64) {
	med := func(ds []time.Duration) float64 {
		if len(ds) == 0 {
			return 0
		}
		s := slices.Clone(ds)
		slices.Sort(s)
		return float64(s[len(s)/2]) / float64(time.Millisecond)
	}
	return med(w.firstAll), med(w.lastAll)
}

func perCallMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / benchWindow }

// BenchmarkReportFileSession measures, in one run, a session of 5,000
// distinct writes: through the proxy with --report-file, directly to the
// upstream, the file-system floor of the report contract, and the split
// of the proxy's own work (judge events, report encoding, file write),
// each as a mean per call over calls 1–100 and 4901–5000.
//
//	go test -run '^$' -bench ReportFileSession -benchtime 1x ./internal/e2e
func BenchmarkReportFileSession(b *testing.B) {
	proxy, upstream := binaries(b)
	b.Logf("load average at start: %s", loadAvg())
	defer func() { b.Logf("load average at end: %s", loadAvg()) }()
	for b.Loop() {
		dir := b.TempDir()
		report := filepath.Join(dir, "report.json")

		var direct windows
		// One after the other: the proxy's file writes keep the kernel
		// busy (page cache, ext4 writeback on rename), which would also
		// slow direct calls interleaved with them.
		d := startBenchSession(b, upstream)
		for i := range benchWrites {
			direct.add(i, d.write(b))
		}
		d.close(b)
		// With a baseline binary both proxies run in this iteration, in
		// alternating order from one run to the next.
		base := os.Getenv(benchBaselineEnv)
		var bp, bf windows
		runBase := func() { bp, bf, _ = proxySession(b, base, upstream, filepath.Join(dir, "baseline.json")) }
		reportBenchRuns++
		if base != "" && reportBenchRuns%2 == 0 {
			runBase()
		}
		proxied, floor, size100 := proxySession(b, proxy, upstream, report)
		if base != "" && reportBenchRuns%2 == 1 {
			runBase()
		}
		if base != "" {
			badded := bp.last - direct.last
			b.ReportMetric(perCallMs(badded), "baseline-added-ms/call@5000")
			b.ReportMetric(perCallMs(badded)/perCallMs(bf.last), "baseline-added/floor@5000")
		}
		sizeFinal := fileSize(b, report)

		split := judgeSplit(b, filepath.Join(b.TempDir(), "report.json"))

		added := windows{first: proxied.first - direct.first, last: proxied.last - direct.last}
		b.ReportMetric(perCallMs(direct.first), "direct-ms/call@100")
		b.ReportMetric(perCallMs(direct.last), "direct-ms/call@5000")
		b.ReportMetric(perCallMs(proxied.first), "proxy-ms/call@100")
		b.ReportMetric(perCallMs(proxied.last), "proxy-ms/call@5000")
		b.ReportMetric(perCallMs(added.first), "added-ms/call@100")
		b.ReportMetric(perCallMs(added.last), "added-ms/call@5000")
		b.ReportMetric(perCallMs(floor.first), "floor-ms/call@100")
		b.ReportMetric(perCallMs(floor.last), "floor-ms/call@5000")
		b.ReportMetric(perCallMs(added.last)/perCallMs(floor.last), "added/floor@5000")
		b.ReportMetric(float64(sizeFinal)/1024, "report-KiB@5000")
		pf, pl := proxied.medians()
		df, dl := direct.medians()
		ff, flast := floor.medians()
		// go test shows at most 10 log lines of a benchmark: keep it short.
		b.Logf("report file %d bytes after 100 writes, %d after %d; per call in ms, @100 / @5000:", size100, sizeFinal, benchWrites)
		b.Logf("mean:   direct %.3f / %.3f  proxy %.3f / %.3f  added %.3f / %.3f  fs floor %.3f / %.3f",
			perCallMs(direct.first), perCallMs(direct.last), perCallMs(proxied.first), perCallMs(proxied.last),
			perCallMs(added.first), perCallMs(added.last), perCallMs(floor.first), perCallMs(floor.last))
		b.Logf("median: direct %.3f / %.3f  proxy %.3f / %.3f  added %.3f / %.3f  fs floor %.3f / %.3f",
			df, dl, pf, pl, pf-df, pl-dl, ff, flast)
		b.Logf("split in process: judge events %.3f / %.3f  report encoding %.3f / %.3f  file writes %.3f / %.3f",
			perCallMs(split.apply.first), perCallMs(split.apply.last), perCallMs(split.encode.first), perCallMs(split.encode.last),
			perCallMs(split.write.first), perCallMs(split.write.last))
	}
}

// reportBenchRuns counts BenchmarkReportFileSession's iterations with a
// baseline, to alternate which proxy runs first.
var reportBenchRuns int

// proxySession runs the 5,000-write session through the proxy binary with
// --report-file report, and right after each call of a window the
// file-system floor for a file of the report's size; size100 is the
// report's size after 100 writes.
func proxySession(b *testing.B, proxy, upstream, report string) (proxied, floor windows, size100 int64) {
	p := startBenchSession(b, proxy, "proxy", "--upstream-command", upstream, "--scenario", "F1",
		"--audit-tools", "off", "--report-file", report)
	// The floor is measured right after each proxied call of a window,
	// so the same machine noise hits both: what the contract alone
	// costs — two atomic replacements per forwarded call (before
	// forwarding, before answering) of a file of the report's size.
	fl := newFSFloor(b, b.TempDir())
	for i := range benchWrites {
		proxied.add(i, p.write(b))
		if i < benchWindow || i >= benchWrites-benchWindow {
			size := fileSize(b, report)
			floor.add(i, fl.replace(b, size)+fl.replace(b, size))
			if i == benchWindow-1 {
				size100 = size
			}
		}
	}
	p.close(b)
	return proxied, floor, size100
}

// loadAvg is /proc/loadavg's first three fields: how busy the machine
// was, to read the numbers with.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func fileSize(b *testing.B, path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return fi.Size()
}

// fsFloor times bare atomic replacements of a file: create a temporary
// file exclusively, write, close, rename.
type fsFloor struct {
	target string
	data   []byte
	n      int
}

func newFSFloor(b *testing.B, dir string) *fsFloor {
	return &fsFloor{target: filepath.Join(dir, "floor.json")}
}

// replace replaces the file with size bytes and returns how long it took.
func (f *fsFloor) replace(b *testing.B, size int64) time.Duration {
	if int64(cap(f.data)) < size {
		f.data = make([]byte, size, 2*size)
	}
	f.n++
	tmp := f.target + "." + strconv.Itoa(os.Getpid()) + "." + strconv.Itoa(f.n) + ".tmp"
	start := time.Now()
	t, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := t.Write(f.data[:size]); err != nil {
		b.Fatal(err)
	}
	if err := t.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, f.target); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// splitTimes are the proxy's own costs per call, measured in process.
type splitTimes struct{ apply, encode, write windows }

// judgeSplit replays the proxy's work for the same session in process: the
// three judge events of a forwarded call, and the two report-file writes
// the way the proxy makes them — report.AppendFile into a reused buffer,
// then reportfile.Writer.Write — with the encoding and the file write
// timed apart.
func judgeSplit(b *testing.B, reportPath string) splitTimes {
	j := judge.New(judge.Config{KeyFields: canon.ParseKeyFields(nil), Scenario: "F1"})
	w, err := reportfile.New(reportPath, reportfile.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var st splitTimes
	meta := report.FileMeta{Status: "running", ToolClassification: []byte(`[{"name":"create_booking","class":"write","reason":"annotation readOnlyHint=false","keyFields":["idempotency_key"]}]`)}
	now := time.Now()
	var buf []byte
	persist := func(i int) {
		t0 := time.Now()
		buf = j.AppendFile(buf[:0], meta)
		t1 := time.Now()
		if err := w.Write(buf); err != nil {
			b.Fatal(err)
		}
		st.encode.add(i, t1.Sub(t0))
		st.write.add(i, time.Since(t1))
	}
	for i := range benchWrites {
		id := int64(i + 1)
		args := []byte(`{"room":"r` + strconv.Itoa(i+1) + `","date":"2026-11-03"}`)
		t0 := time.Now()
		j.Apply(judge.Event{Kind: judge.EventCall, Time: now, Call: id, Tool: "create_booking", Class: classify.Write, Arguments: args, AcceptsKey: true})
		j.Apply(judge.Event{Kind: judge.EventForwarded, Time: now, Call: id})
		d := time.Since(t0)
		persist(i)
		t0 = time.Now()
		ev := judge.Event{Kind: judge.EventAnswer, Time: now, Call: id, Outcome: judge.Executed, ResponseDigest: "d" + strconv.Itoa(i)}
		if i == 0 {
			ev.Scenario, ev.Fault = "F1", "timeout"
		}
		j.Apply(ev)
		st.apply.add(i, d+time.Since(t0))
		persist(i)
	}
	return st
}
