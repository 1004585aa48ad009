// Command upstream is the MCP server the end-to-end tests put behind the
// proxy. It speaks newline-delimited JSON-RPC on stdio, written by hand so
// that every byte it sends is under the test's control: unknown fields,
// big integers, huge results, progress, server→client requests, crashes and
// hangs on demand. It counts executions per (tool, canonical arguments).
//
// Flags (each also settable through the environment variable in brackets):
//
//	-page-size N        tools/list pages of N tools [UPSTREAM_PAGE_SIZE]
//	-counts-file F      rewrite F with the execution counts after each one [UPSTREAM_COUNTS_FILE]
//	-no-tools           announce no tools capability [UPSTREAM_NO_TOOLS]
//	-exit-at-start N    write to stderr and exit with status N at once [UPSTREAM_EXIT_AT_START]
//	-stderr-lines N     write N numbered lines to stderr at start [UPSTREAM_STDERR_LINES]
//	-grandchild-pidfile F  start a sleeping grandchild and write its pid to F [UPSTREAM_GRANDCHILD_PIDFILE]
//	-setsid-grandchild-pidfile F  the same, in a session of its own (setsid): out of the process group [UPSTREAM_SETSID_GRANDCHILD_PIDFILE]
//	-pidfile F          write the upstream's own pid to F at start [UPSTREAM_PIDFILE]
//	-ignore-stdin-eof   keep running after stdin closes (needs SIGTERM) [UPSTREAM_IGNORE_STDIN_EOF]
//	-ignore-sigterm     ignore SIGTERM (needs SIGKILL) [UPSTREAM_IGNORE_SIGTERM]
//	-hotel-tools        also list check_in_guest (a write) and update_status_view
//	                    (a read), which the built-in name patterns misclassify [UPSTREAM_HOTEL_TOOLS]
//	-idempotent-tools   also list set_room_status (a write with idempotentHint: true),
//	                    billing/charge-card (namespaced kebab-case write) and crm.getLead
//	                    (namespaced camelCase read) [UPSTREAM_IDEMPOTENT_TOOLS]
//	-lenient-unlisted   execute calls of tools it does not list, as lenient servers
//	                    do, instead of answering -32602 [UPSTREAM_LENIENT_UNLISTED]
//	-relist-read-only   add_tool of a listed tool re-lists that tool with
//	                    readOnlyHint: true instead of adding one [UPSTREAM_RELIST_READ_ONLY]
//	-totals-file F      rewrite F with {"TOOL": executions, …} after each execution:
//	                    a state probe's counters (`cat F`) [UPSTREAM_TOTALS_FILE]
//	-crash-after N      exit with status 3, without answering, right after the Nth
//	                    execution was counted (a lost answer) [UPSTREAM_CRASH_AFTER]
//
// Tools (every tool accepts "fail": true → an isError result, not counted,
// and "sleep_ms": N → answer after N ms):
//
//	create_booking, book_room, pay_invoice    writes
//	get_booking, list_bookings                reads
//	get_execution_counts                      the counts (not counted itself)
//	echo                                      structuredContent, _meta, unknown result fields
//	big_number                                integers beyond 2^53
//	big_result {"bytes": N}                   a text result of N bytes
//	progress {"steps": N}                     N progress notifications when a progressToken is given
//	ask_client {"method": M, "params": P}     a server→client request, answers with the client's response
//	log {"message": S}                        a notifications/message before the answer
//	add_tool {"name": S}                      adds a tool and sends notifications/tools/list_changed
//	crash {"code": N}                         writes to stderr and exits with status N
//	hang                                      never answers
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// tools are the tool objects exactly as listed, with fields an MCP SDK does
// not know (execution, x-vendor) and with and without annotations.
var baseTools = []string{
	`{"name":"create_booking","title":"Create a booking","description":"Creates a booking.","inputSchema":{"type":"object","properties":{"room":{"type":"string"},"date":{"type":"string"},"idempotency_key":{"type":"string"}},"required":["room"]},"annotations":{"readOnlyHint":false,"destructiveHint":false},"execution":{"taskSupport":"optional"},"x-vendor":{"tier":1}}`,
	`{"name":"book_room","description":"Books a room (no key field).","inputSchema":{"type":"object","properties":{"room":{"type":"string"},"nights":{"type":"integer"}}}}`,
	`{"name":"pay_invoice","description":"Pays an invoice.","inputSchema":{"type":"object","properties":{"invoice":{"type":"string"},"amount":{"type":"number"},"Idempotency-Key":{"type":"string"}}},"annotations":{"destructiveHint":true}}`,
	`{"name":"get_booking","description":"Reads a booking.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}}},"annotations":{"readOnlyHint":true},"outputSchema":{"type":"object"}}`,
	`{"name":"list_bookings","description":"Lists bookings.","inputSchema":{"type":"object"}}`,
	`{"name":"get_execution_counts","description":"Execution counts per tool and canonical arguments.","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`,
	`{"name":"echo","description":"Echoes its arguments with structuredContent, _meta and unknown fields.","inputSchema":{"type":"object","additionalProperties":true},"_meta":{"upstream/tool-meta":{"v":2}}}`,
	`{"name":"big_number","description":"Returns integers beyond 2^53.","inputSchema":{"type":"object"}}`,
	`{"name":"big_result","description":"Returns a text of the given size.","inputSchema":{"type":"object","properties":{"bytes":{"type":"integer"}}}}`,
	`{"name":"progress","description":"Reports progress.","inputSchema":{"type":"object","properties":{"steps":{"type":"integer"}}}}`,
	`{"name":"ask_client","description":"Sends a request to the client.","inputSchema":{"type":"object","properties":{"method":{"type":"string"},"params":{"type":"object"}}}}`,
	`{"name":"log","description":"Logs a message.","inputSchema":{"type":"object","properties":{"message":{"type":"string"}}}}`,
	`{"name":"add_tool","description":"Adds a tool.","inputSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`,
	`{"name":"crash","description":"Exits.","inputSchema":{"type":"object","properties":{"code":{"type":"integer"}}}}`,
	`{"name":"hang","description":"Never answers.","inputSchema":{"type":"object"}}`,
}

// hotelTools are listed with -hotel-tools: names the built-in patterns
// misclassify (check_* reads, update_* writes), for classifier plugins.
var hotelTools = []string{
	`{"name":"check_in_guest","description":"Checks a guest in.","inputSchema":{"type":"object","properties":{"guest":{"type":"string"},"room":{"type":"string"}}}}`,
	`{"name":"update_status_view","description":"Shows the status view.","inputSchema":{"type":"object"}}`,
}

// idempotentTools are listed with -idempotent-tools (behaviour §4.8, §11.3).
var idempotentTools = []string{
	`{"name":"set_room_status","description":"Sets a room's status; repeating it changes nothing.","inputSchema":{"type":"object","properties":{"room":{"type":"string"},"status":{"type":"string"}}},"annotations":{"readOnlyHint":false,"idempotentHint":true}}`,
	`{"name":"billing/charge-card","description":"Charges a card.","inputSchema":{"type":"object","properties":{"card":{"type":"string"},"amount":{"type":"number"}}}}`,
	`{"name":"crm.getLead","description":"Reads a lead.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}}}}`,
}

type server struct {
	pageSize   int
	countsFile string
	totalsFile string
	crashAfter int
	executions int
	noTools    bool
	lenient    bool // execute calls of unlisted tools (as some servers do)
	relistRO   bool // add_tool of a listed tool re-lists it read-only

	wmu sync.Mutex
	out *os.File

	mu      sync.Mutex
	tools   []string
	counts  map[string]int // tool + "\x00" + canonical args
	waiters map[string]chan json.RawMessage
	nextID  int
}

func main() {
	pageSize := flag.Int("page-size", envInt("UPSTREAM_PAGE_SIZE", 0), "tools/list page size (0: one page)")
	countsFile := flag.String("counts-file", os.Getenv("UPSTREAM_COUNTS_FILE"), "file with the execution counts")
	noTools := flag.Bool("no-tools", os.Getenv("UPSTREAM_NO_TOOLS") != "", "no tools capability")
	exitAtStart := flag.Int("exit-at-start", envInt("UPSTREAM_EXIT_AT_START", -1), "exit at once with this status")
	stderrLines := flag.Int("stderr-lines", envInt("UPSTREAM_STDERR_LINES", 0), "lines written to stderr at start")
	grandchild := flag.String("grandchild-pidfile", os.Getenv("UPSTREAM_GRANDCHILD_PIDFILE"), "start a sleeping grandchild, write its pid here")
	setsidChild := flag.String("setsid-grandchild-pidfile", os.Getenv("UPSTREAM_SETSID_GRANDCHILD_PIDFILE"), "start a sleeping grandchild in its own session, write its pid here")
	pidfile := flag.String("pidfile", os.Getenv("UPSTREAM_PIDFILE"), "write the upstream's pid here")
	ignoreEOF := flag.Bool("ignore-stdin-eof", os.Getenv("UPSTREAM_IGNORE_STDIN_EOF") != "", "keep running after stdin EOF")
	ignoreTerm := flag.Bool("ignore-sigterm", os.Getenv("UPSTREAM_IGNORE_SIGTERM") != "", "ignore SIGTERM")
	hotel := flag.Bool("hotel-tools", os.Getenv("UPSTREAM_HOTEL_TOOLS") != "", "also list check_in_guest and update_status_view")
	idem := flag.Bool("idempotent-tools", os.Getenv("UPSTREAM_IDEMPOTENT_TOOLS") != "", "also list set_room_status, billing/charge-card and crm.getLead")
	lenient := flag.Bool("lenient-unlisted", os.Getenv("UPSTREAM_LENIENT_UNLISTED") != "", "execute calls of tools it does not list")
	relistRO := flag.Bool("relist-read-only", os.Getenv("UPSTREAM_RELIST_READ_ONLY") != "", "add_tool of a listed tool re-lists it with readOnlyHint: true")
	totalsFile := flag.String("totals-file", os.Getenv("UPSTREAM_TOTALS_FILE"), "file with the executions per tool, as one JSON object")
	crashAfter := flag.Int("crash-after", envInt("UPSTREAM_CRASH_AFTER", 0), "exit without answering after this many executions")
	flag.Parse()

	for i := 1; i <= *stderrLines; i++ {
		fmt.Fprintf(os.Stderr, "upstream stderr line %d\n", i)
	}
	if *exitAtStart >= 0 {
		fmt.Fprintf(os.Stderr, "upstream: exiting at start with status %d\n", *exitAtStart)
		os.Exit(*exitAtStart)
	}
	if *ignoreTerm {
		signal.Ignore(syscall.SIGTERM)
	}
	if *grandchild != "" {
		startGrandchild(*grandchild, false)
	}
	if *setsidChild != "" {
		startGrandchild(*setsidChild, true)
	}
	if *pidfile != "" {
		writePid(*pidfile, os.Getpid())
	}
	s := &server{
		pageSize: *pageSize, countsFile: *countsFile, totalsFile: *totalsFile, crashAfter: *crashAfter, noTools: *noTools, lenient: *lenient, relistRO: *relistRO,
		out: os.Stdout, tools: append([]string(nil), baseTools...),
		counts: map[string]int{}, waiters: map[string]chan json.RawMessage{},
	}
	if *hotel {
		s.tools = append(s.tools, hotelTools...)
	}
	if *idem {
		s.tools = append(s.tools, idempotentTools...)
	}
	s.serve()
	if *ignoreEOF {
		// Not select{}: with nothing else to run, the runtime would end
		// the process as deadlocked.
		for {
			time.Sleep(time.Hour)
		}
	}
}

// startGrandchild starts a sleeping child, in a session of its own with
// setsid, and writes its pid to pidfile.
func startGrandchild(pidfile string, setsid bool) {
	cmd := exec.Command("sleep", "300")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: setsid}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "upstream: start grandchild: %v\n", err)
		os.Exit(3)
	}
	writePid(pidfile, cmd.Process.Pid)
}

func writePid(path string, pid int) {
	if err := os.WriteFile(path, []byte(strconv.Itoa(pid)), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "upstream: write pidfile: %v\n", err)
		os.Exit(3)
	}
}

func envInt(name string, def int) int {
	if v := os.Getenv(name); v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	return def
}

// message is an incoming JSON-RPC message; raw parts stay raw.
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

func (s *server) serve() {
	r := bufio.NewReaderSize(os.Stdin, 1<<16)
	var wg sync.WaitGroup
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var m message
			if jerr := json.Unmarshal(line, &m); jerr != nil {
				s.write(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
			} else if m.Method == "tools/call" && bytes.Contains(m.Params, []byte(`"stop_reading"`)) {
				// Answers, then never reads its input again (a stalled
				// server whose input pipe fills up).
				s.reply(m.ID, textResult("stopped reading"))
				for {
					time.Sleep(time.Hour) // a timer: no "all goroutines are asleep"
				}
			} else {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s.handle(m)
				}()
			}
		}
		if err != nil {
			break
		}
	}
	wg.Wait()
}

func (s *server) write(msg string) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, _ = s.out.WriteString(msg + "\n")
}

func (s *server) reply(id json.RawMessage, result string) {
	s.write(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + result + `}`)
}

func (s *server) replyError(id json.RawMessage, code int, msg string) {
	s.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, id, code, msg))
}

func (s *server) handle(m message) {
	if m.Method == "" {
		// A response to one of our requests.
		s.mu.Lock()
		ch := s.waiters[string(m.ID)]
		delete(s.waiters, string(m.ID))
		s.mu.Unlock()
		if ch != nil {
			if m.Result != nil {
				ch <- m.Result
			} else {
				ch <- json.RawMessage(`{"error":` + string(m.Error) + `}`)
			}
		}
		return
	}
	if m.ID == nil {
		return // notifications: initialized, cancelled, progress …
	}
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Params, &p)
		if p.ProtocolVersion == "" {
			p.ProtocolVersion = "2025-06-18"
		}
		caps := `"resources":{"subscribe":false,"listChanged":true},"prompts":{"listChanged":false},"logging":{},"completions":{}`
		if !s.noTools {
			caps = `"tools":{"listChanged":true},` + caps
		}
		s.reply(m.ID, `{"protocolVersion":`+strconv.Quote(p.ProtocolVersion)+`,"capabilities":{`+caps+
			`},"serverInfo":{"name":"agent-harness-test-upstream","version":"1.0.0","x-build":"t1"},`+
			`"instructions":"Test upstream: use get_booking before retrying a write.","x-upstream-extra":{"n":9007199254740993}}`)
	case "ping":
		s.reply(m.ID, `{}`)
	case "tools/list":
		if s.noTools {
			s.replyError(m.ID, -32601, "Method not found")
			return
		}
		s.toolsList(m)
	case "tools/call":
		s.toolsCall(m)
	case "resources/list":
		s.reply(m.ID, `{"resources":[{"uri":"test://bookings/1","name":"booking-1","mimeType":"application/json","size":18446744073709551615,"_meta":{"x":true},"x-unknown":[1,2.50,3e2]}],"x-page":{"n":1}}`)
	case "resources/read":
		s.reply(m.ID, `{"contents":[{"uri":"test://bookings/1","mimeType":"application/json","text":"{\"id\":1}"}]}`)
	case "resources/templates/list":
		s.reply(m.ID, `{"resourceTemplates":[{"uriTemplate":"test://bookings/{id}","name":"booking"}]}`)
	case "prompts/list":
		s.reply(m.ID, `{"prompts":[{"name":"retry_policy","description":"How to retry.","arguments":[{"name":"tool","required":true}],"icons":[{"src":"data:,x"}]}]}`)
	case "prompts/get":
		s.reply(m.ID, `{"messages":[{"role":"user","content":{"type":"text","text":"Never retry a write blindly."}}]}`)
	case "completion/complete":
		s.reply(m.ID, `{"completion":{"values":["create_booking"],"total":1,"hasMore":false}}`)
	case "logging/setLevel":
		s.reply(m.ID, `{}`)
	default:
		s.replyError(m.ID, -32601, "Method not found: "+m.Method)
	}
}

func (s *server) toolsList(m message) {
	var p struct {
		Cursor string `json:"cursor"`
	}
	_ = json.Unmarshal(m.Params, &p)
	s.mu.Lock()
	tools := append([]string(nil), s.tools...)
	s.mu.Unlock()
	start := 0
	if p.Cursor != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(p.Cursor, "page-"))
		if err != nil || n < 0 || n > len(tools) {
			s.replyError(m.ID, -32602, "invalid cursor")
			return
		}
		start = n
	}
	end := len(tools)
	if s.pageSize > 0 && start+s.pageSize < end {
		end = start + s.pageSize
	}
	res := `{"tools":[` + strings.Join(tools[start:end], ",") + `]`
	if end < len(tools) {
		res += `,"nextCursor":"page-` + strconv.Itoa(end) + `"`
	}
	s.reply(m.ID, res+`}`)
}

// callParams are the parts of tools/call the server looks at.
type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	} `json:"_meta"`
}

// common are the arguments every tool accepts.
type common struct {
	Fail    bool `json:"fail"`
	SleepMS int  `json:"sleep_ms"`
}

func textResult(text string) string {
	return `{"content":[{"type":"text","text":` + strconv.Quote(text) + `}]}`
}

func (s *server) toolsCall(m message) {
	var p callParams
	if err := json.Unmarshal(m.Params, &p); err != nil {
		s.replyError(m.ID, -32602, "invalid params")
		return
	}
	var c common
	_ = json.Unmarshal(p.Arguments, &c)
	if c.SleepMS > 0 {
		// Announced so a test can wait for the call to be under way.
		fmt.Fprintf(os.Stderr, "upstream: %s sleeping %d ms\n", p.Name, c.SleepMS)
		time.Sleep(time.Duration(c.SleepMS) * time.Millisecond)
	}
	s.mu.Lock()
	known := false
	for _, t := range s.tools {
		if strings.HasPrefix(t, `{"name":`+strconv.Quote(p.Name)+`,`) {
			known = true
		}
	}
	s.mu.Unlock()
	if !known && !s.lenient {
		s.replyError(m.ID, -32602, "Unknown tool: "+p.Name)
		return
	}
	if c.Fail {
		s.reply(m.ID, `{"content":[{"type":"text","text":"Error: `+p.Name+` failed on request"}],"isError":true}`)
		return
	}
	switch p.Name {
	case "get_execution_counts":
		s.reply(m.ID, s.countsResult())
		return
	case "crash":
		var a struct {
			Code int `json:"code"`
		}
		_ = json.Unmarshal(p.Arguments, &a)
		fmt.Fprintf(os.Stderr, "upstream: crashing on request with status %d\n", a.Code)
		os.Exit(a.Code)
	case "hang":
		select {}
	}
	s.count(p.Name, p.Arguments)
	switch p.Name {
	case "create_booking", "book_room", "pay_invoice":
		s.reply(m.ID, `{"content":[{"type":"text","text":"`+p.Name+` done"}],"structuredContent":{"ok":true,"tool":"`+p.Name+`"}}`)
	case "get_booking":
		s.reply(m.ID, `{"content":[{"type":"text","text":"{\"id\":\"b1\"}"}],"structuredContent":{"id":"b1","exists":true}}`)
	case "list_bookings":
		s.reply(m.ID, textResult("[]"))
	case "echo":
		args := p.Arguments
		if len(args) == 0 {
			args = json.RawMessage(`{}`)
		}
		s.reply(m.ID, `{"content":[{"type":"text","text":`+strconv.Quote(string(args))+`,"annotations":{"audience":["user"],"priority":0.5}}],`+
			`"structuredContent":{"arguments":`+string(args)+`},"_meta":{"upstream/trace":"t-1","n":12.50},"x-unknown-result-field":{"nested":[true,null]},"isError":false}`)
	case "big_number":
		s.reply(m.ID, `{"content":[{"type":"text","text":"9007199254740993"}],"structuredContent":{"n":9007199254740993,"neg":-9007199254740993,"huge":123456789012345678901234567890,"f":1.0000000000000002,"e":1E400}}`)
	case "big_result":
		var a struct {
			Bytes int `json:"bytes"`
		}
		_ = json.Unmarshal(p.Arguments, &a)
		s.reply(m.ID, textResult(strings.Repeat("x", a.Bytes)))
	case "progress":
		var a struct {
			Steps int `json:"steps"`
		}
		_ = json.Unmarshal(p.Arguments, &a)
		if len(p.Meta.ProgressToken) > 0 {
			for i := 1; i <= a.Steps; i++ {
				s.write(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%d,"total":%d,"message":"step %d"}}`,
					p.Meta.ProgressToken, i, a.Steps, i))
			}
		}
		s.reply(m.ID, textResult(fmt.Sprintf("%d steps", a.Steps)))
	case "ask_client":
		var a struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		_ = json.Unmarshal(p.Arguments, &a)
		if len(a.Params) == 0 {
			a.Params = json.RawMessage(`{}`)
		}
		resp := s.ask(a.Method, a.Params)
		s.reply(m.ID, `{"content":[{"type":"text","text":`+strconv.Quote(string(resp))+`}],"structuredContent":{"response":`+string(resp)+`}}`)
	case "log":
		var a struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(p.Arguments, &a)
		s.write(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"upstream","data":` + strconv.Quote(a.Message) + `}}`)
		s.reply(m.ID, textResult("logged"))
	case "add_tool":
		var a struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(p.Arguments, &a)
		s.mu.Lock()
		if !s.relistRO || !s.relistReadOnly(a.Name) {
			s.tools = append(s.tools, `{"name":`+strconv.Quote(a.Name)+`,"description":"Added at run time.","inputSchema":{"type":"object","properties":{"idempotency_key":{"type":"string"}}}}`)
		}
		s.mu.Unlock()
		s.reply(m.ID, textResult("added "+a.Name))
		s.write(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	default:
		s.reply(m.ID, textResult(p.Name+" done"))
	}
}

// relistReadOnly replaces the listed tool name's definition by one with
// readOnlyHint: true (the caller holds mu); false when it is not listed.
func (s *server) relistReadOnly(name string) bool {
	for i, raw := range s.tools {
		var t map[string]json.RawMessage
		if json.Unmarshal([]byte(raw), &t) != nil || string(t["name"]) != strconv.Quote(name) {
			continue
		}
		t["annotations"] = json.RawMessage(`{"readOnlyHint":true}`)
		delete(t, "name")
		rest, _ := json.Marshal(t) // never {}: a tool has an inputSchema
		// The name first, as toolsCall looks a tool up.
		s.tools[i] = `{"name":` + strconv.Quote(name) + `,` + string(rest[1:])
		return true
	}
	return false
}

// ask sends a request to the client and waits for its response.
func (s *server) ask(method string, params json.RawMessage) json.RawMessage {
	s.mu.Lock()
	s.nextID++
	id := `"srv-` + strconv.Itoa(s.nextID) + `"`
	ch := make(chan json.RawMessage, 1)
	s.waiters[id] = ch
	s.mu.Unlock()
	s.write(`{"jsonrpc":"2.0","id":` + id + `,"method":` + strconv.Quote(method) + `,"params":` + string(params) + `}`)
	return <-ch
}

// count records one execution of tool with args in canonical form (keys
// sorted; numbers as written).
func (s *server) count(tool string, args json.RawMessage) {
	key := tool + "\x00" + canonical(args)
	s.mu.Lock()
	s.counts[key]++
	s.executions++
	if s.totalsFile != "" {
		s.writeTotalsLocked()
	}
	if s.crashAfter > 0 && s.executions == s.crashAfter {
		fmt.Fprintf(os.Stderr, "upstream: crashing after execution %d, without answering\n", s.executions)
		os.Exit(3)
	}
	if s.countsFile == "" {
		// Rendering every count costs O(n) per execution; only the counts
		// file needs it (benchmarks run without one).
		s.mu.Unlock()
		return
	}
	// Written under the lock, so a later count never loses to an earlier
	// one (two executions at once both rename the file).
	defer s.mu.Unlock()
	tmp := s.countsFile + ".tmp"
	if err := os.WriteFile(tmp, []byte(s.countsResultLocked()), 0o644); err == nil {
		_ = os.Rename(tmp, s.countsFile)
	}
}

// writeTotalsLocked rewrites the totals file: executions per tool.
func (s *server) writeTotalsLocked() {
	totals := map[string]int{}
	for k, n := range s.counts {
		tool, _, _ := strings.Cut(k, "\x00")
		totals[tool] += n
	}
	b, _ := json.Marshal(totals)
	tmp := s.totalsFile + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err == nil {
		_ = os.Rename(tmp, s.totalsFile)
	}
}

func canonical(args json.RawMessage) string {
	if len(args) == 0 {
		return "{}"
	}
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return string(args)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return string(args)
	}
	return string(b)
}

func (s *server) countsResult() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.countsResultLocked()
}

// countsResultLocked renders {"structuredContent":{"counts":[{tool,arguments,count}]}}.
func (s *server) countsResultLocked() string {
	keys := make([]string, 0, len(s.counts))
	for k := range s.counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	items := make([]string, 0, len(keys))
	for _, k := range keys {
		tool, args, _ := strings.Cut(k, "\x00")
		items = append(items, fmt.Sprintf(`{"tool":%q,"arguments":%s,"count":%d}`, tool, args, s.counts[k]))
	}
	list := "[" + strings.Join(items, ",") + "]"
	return `{"content":[{"type":"text","text":` + strconv.Quote(list) + `}],"structuredContent":{"counts":` + list + `}}`
}
