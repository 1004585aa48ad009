package relay

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/mcpver"
	"github.com/cuonztech/agent-harness/internal/wire"
)

// maxListPages bounds the proxy's own tools/list pagination.
const maxListPages = 10000

// catalog is what the session knows of the tools: the upstream's tools as
// it listed and classified them, and the extra (audit) tools it offers
// besides. It lists the tools (at the start of the session, again after
// notifications/tools/list_changed, and learns tools an agent's own
// listing shows first), prints the classification table and reports each
// new list to Options.OnTools — all through install.
type catalog struct {
	log           *logger
	classifyFn    func(classify.Tool) classify.Result
	keyField      func(string) bool
	keyFieldNames []string
	onTools       func([]ToolInfo)
	// request sends a request of the proxy's own to the upstream and waits
	// for its answer.
	request func(method string, params []byte) (upMsg, error)
	work    *requests  // a re-listing is work the session end waits for
	life    *lifecycle // a re-listing is not waited for once the upstream is gone

	tools     atomic.Pointer[toolSet]
	extras    atomic.Pointer[extraSet]
	allExtras []extraTool
	// upHasTools: the upstream announced tools (or listed them).
	upHasTools atomic.Bool
	// listed: the session has started (a handshake was answered with a
	// result, or the lazy listing succeeded) and the tools are listed.
	listed atomic.Bool
	// lazyTried: the listing before the agent's first request was tried.
	lazyTried atomic.Bool
	// listMeta is the SEP-2575 _meta of the proxy's own tools/list
	// requests (nil: the legacy protocol).
	listMeta atomic.Pointer[[]byte]

	installMu sync.Mutex // read-modify-write of tools, and its report
	// history keeps a tool once listed as a write a write, and a write
	// once listed as not idempotent not idempotent (behaviour §4.8), so a
	// re-listing makes a tool stricter, never laxer. Under installMu.
	history  classify.History
	relistMu sync.Mutex // one re-listing at a time

	mu sync.Mutex
	// relisting counts re-listings started and not finished;
	// relistQueued says one is started but has not begun listing, so
	// further list_changed notifications need no other.
	relisting    int
	relistQueued bool
	// relisted, when not nil, is closed once relisting drops to 0.
	relisted chan struct{}
}

// toolSet is the learned upstream tool list, replaced as a whole.
type toolSet struct {
	order   []ToolInfo
	listing *classify.Listing
}

// extraSet is the set of extra (audit) tools currently offered.
type extraSet struct {
	raws  []json.RawMessage
	names map[string]bool
}

// extraTool is one of Options.ExtraTools with its name.
type extraTool struct {
	name string
	raw  json.RawMessage
}

func newCatalog(opts Options, log *logger, work *requests, life *lifecycle) (*catalog, error) {
	c := &catalog{
		log:           log,
		classifyFn:    opts.Classify,
		keyField:      opts.KeyField,
		keyFieldNames: opts.KeyFieldNames,
		onTools:       opts.OnTools,
		work:          work,
		life:          life,
	}
	for i, raw := range opts.ExtraTools {
		v, _, ok := wire.Lookup(raw, "name")
		name, ok2 := wire.Unquote(v)
		if !ok || !ok2 || name == "" || !wire.Valid(raw) {
			return nil, errors.New("extra tool " + strconv.Itoa(i) + " is not a JSON object with a string name")
		}
		c.allExtras = append(c.allExtras, extraTool{name: name, raw: raw})
	}
	c.set(nil)
	return c, nil
}

func newToolSet(infos []ToolInfo) *toolSet {
	return &toolSet{order: infos, listing: classify.NewListing(infos)}
}

// lookup returns the tool's entry; a tool the upstream did not list is
// classify.Unknown.
func (ts *toolSet) lookup(name string) ToolInfo {
	return ts.listing.Lookup(name)
}

// has reports whether the upstream listed the tool.
func (ts *toolSet) has(name string) bool {
	return ts.listing.Lookup(name).Class != classify.Unknown
}

// started reports whether the session has started: the tools are listed.
func (c *catalog) started() bool { return c.listed.Load() }

// upstreamTools is the upstream's current tool list.
func (c *catalog) upstreamTools() *toolSet { return c.tools.Load() }

// extra reports whether name is one of the extra tools offered now.
func (c *catalog) extra(name string) bool { return c.extras.Load().names[name] }

// offersExtras reports whether any extra tool is offered.
func (c *catalog) offersExtras() bool { return len(c.extras.Load().raws) > 0 }

// answersListing reports whether the proxy answers tools/list itself:
// the upstream has no tools, the proxy has extra tools.
func (c *catalog) answersListing() bool {
	return !c.upHasTools.Load() && c.listed.Load() && c.offersExtras()
}

// set installs a new upstream tool list and recomputes which extra tools
// are offered (an upstream tool of the same name wins).
func (c *catalog) set(infos []ToolInfo) {
	ts := newToolSet(infos)
	c.tools.Store(ts)
	es := &extraSet{names: make(map[string]bool)}
	for _, e := range c.allExtras {
		if ts.has(e.name) {
			if infos != nil {
				c.log.Printf("WARNING: the upstream has its own tool %q; the proxy's tool of that name is not offered.", e.name)
			}
			continue
		}
		es.raws = append(es.raws, e.raw)
		es.names[e.name] = true
	}
	c.extras.Store(es)
}

// install sets a new tool list, prints why (note, unless empty) and the
// classification table, and reports the list to OnTools. The caller holds
// installMu. The list is first made stricter by the earlier ones
// (classify.History).
func (c *catalog) install(infos []ToolInfo, note string) {
	infos = c.history.Apply(infos)
	c.set(infos)
	if note != "" {
		c.log.Info(note)
	}
	c.log.Table(classify.Table(infos, c.keyFieldNames))
	if c.onTools != nil {
		c.onTools(infos)
	}
}

// listFirst lists the tools when a handshake started the session: meta is
// the SEP-2575 _meta of the listing requests (nil: legacy), upHasTools
// whether the upstream announced tools (else nothing is listed).
func (c *catalog) listFirst(meta []byte, upHasTools bool) {
	c.upHasTools.Store(upHasTools)
	c.listMeta.Store(&meta)
	var infos []ToolInfo
	if upHasTools {
		var err error
		infos, err = c.listAll(meta)
		if err != nil {
			c.log.Printf("WARNING: could not list all of the upstream's tools: %v", err)
		}
	}
	c.announce(infos)
}

// listLazily lists the upstream's tools before the agent's first request
// when the session was not started by a handshake the proxy saw (a
// stateless SEP-2575 client may send requests without server/discover). The
// listing carries the request's own SEP-2575 _meta. If the upstream refuses
// it (e.g. a legacy server before initialize), the handshake that follows
// lists the tools; this is tried once.
func (c *catalog) listLazily(env wire.Envelope) {
	if c.lazyTried.Swap(true) || c.life.isUpstreamGone() {
		return
	}
	meta := requestMeta(env.Params, "")
	infos, err := c.listAll(meta)
	if err != nil && len(infos) == 0 {
		c.log.Printf("could not list the upstream's tools before the agent's first request (%s): %v; they are listed after the agent's initialize", env.Method, err)
		return
	}
	if err != nil {
		c.log.Printf("WARNING: could not list all of the upstream's tools: %v", err)
	}
	c.upHasTools.Store(true)
	c.listMeta.Store(&meta)
	c.announce(infos)
}

// announce installs the first tool list of the session and starts the
// session.
func (c *catalog) announce(infos []ToolInfo) {
	if infos == nil {
		infos = []ToolInfo{}
	}
	c.installMu.Lock()
	c.install(infos, "")
	c.installMu.Unlock()
	c.listed.Store(true)
}

// listAll lists every upstream tool, following nextCursor, and classifies
// each. meta is the SEP-2575 _meta of the listing requests (nil for the
// legacy protocol). On an error it returns what it has so far.
func (c *catalog) listAll(meta []byte) ([]ToolInfo, error) {
	infos := []ToolInfo{}
	cursors := make(map[string]bool)
	params := listParams(meta, nil)
	for range maxListPages {
		m, err := c.request("tools/list", params)
		if err != nil {
			return infos, fmt.Errorf("tools/list: %w", err)
		}
		if m.env.Result == nil {
			return infos, fmt.Errorf("tools/list: the upstream answered with an error: %s", m.env.Error)
		}
		page := parseToolsPage(m.env.Result)
		for _, raw := range page.tools {
			if ti, ok := c.classify(raw); ok {
				infos = append(infos, ti)
			}
		}
		if page.nextCursor == nil {
			return infos, nil
		}
		if cursors[string(page.nextCursor)] {
			return infos, errors.New("tools/list: the upstream repeated a cursor")
		}
		cursors[string(page.nextCursor)] = true
		params = listParams(meta, page.nextCursor)
	}
	return infos, fmt.Errorf("tools/list: more than %d pages", maxListPages)
}

// classify classifies one raw tool object as the upstream sent it
// (classify.EntryOf, which the offline judge uses too); the entry keeps a
// copy of the raw definition for the trace.
func (c *catalog) classify(raw []byte) (ToolInfo, bool) {
	e, ok := classify.EntryOf(raw, c.classifyFn, c.keyField)
	if ok {
		e.OutputSchema = hasOutputSchema(raw)
	}
	return e, ok
}

// listChanged starts a re-listing for the upstream's
// notifications/tools/list_changed (unless one is started and has not
// begun listing yet), before the notification is forwarded.
func (c *catalog) listChanged() {
	if !c.listed.Load() || !c.upHasTools.Load() {
		return
	}
	c.mu.Lock()
	start := !c.relistQueued
	if start {
		c.relistQueued = true
		c.relisting++
		c.work.begin()
	}
	c.mu.Unlock()
	if start {
		go c.relist()
	}
}

// relist re-reads the tool list after notifications/tools/list_changed.
func (c *catalog) relist() {
	defer func() {
		c.mu.Lock()
		c.relisting--
		if c.relisting == 0 && c.relisted != nil {
			close(c.relisted)
			c.relisted = nil
		}
		c.work.done()
		c.mu.Unlock()
	}()
	c.relistMu.Lock()
	defer c.relistMu.Unlock()
	c.mu.Lock()
	c.relistQueued = false
	c.mu.Unlock()
	var meta []byte
	if m := c.listMeta.Load(); m != nil {
		meta = *m
	}
	infos, err := c.listAll(meta)
	if err != nil {
		c.log.Printf("WARNING: could not re-list the upstream's tools after %s: %v", methodToolsListChanged, err)
		if len(infos) == 0 {
			return
		}
	}
	c.installMu.Lock()
	defer c.installMu.Unlock()
	infos = c.history.Apply(infos)
	if sameEntries(c.tools.Load().order, infos) {
		return
	}
	c.install(infos, "The upstream's tool list changed.")
}

// waitRelisted waits until no re-listing is in progress (or the upstream
// is gone). Each re-listing waits at most the call timeout per page.
func (c *catalog) waitRelisted() {
	c.mu.Lock()
	if c.relisting == 0 {
		c.mu.Unlock()
		return
	}
	if c.relisted == nil {
		c.relisted = make(chan struct{})
	}
	ch := c.relisted
	c.mu.Unlock()
	select {
	case <-ch:
	case <-c.life.upstreamGone():
	}
}

// sameEntries reports whether two classified tool lists are equal.
func sameEntries(a, b []ToolInfo) bool {
	return slices.EqualFunc(a, b, func(x, y ToolInfo) bool {
		return x.Name == y.Name && x.Class == y.Class && x.Reason == y.Reason && slices.Equal(x.KeyFields, y.KeyFields) &&
			x.OutputSchema == y.OutputSchema
	})
}

// toolsListAnswer is the agent's answer to its tools/list (line, env: the
// upstream's answer with the agent's id): tool objects unchanged; tools the
// proxy did not know yet are learned; the extra tools are appended to the
// last page.
func (c *catalog) toolsListAnswer(line []byte, env wire.Envelope) []byte {
	if env.Result == nil {
		return line
	}
	page := parseToolsPage(env.Result)
	c.learnMissing(page.tools)
	if page.nextCursor != nil {
		return line
	}
	return appendTools(line, env.ResultStart, page, c.extras.Load().raws)
}

// learnMissing adds tools seen in an agent's listing that the proxy's own
// listing did not return (an upstream that changed its list silently).
// It runs on the upstream reader, so it must not wait for a re-listing.
func (c *catalog) learnMissing(raws [][]byte) {
	c.installMu.Lock()
	defer c.installMu.Unlock()
	cur := c.tools.Load()
	var added []ToolInfo
	for _, raw := range raws {
		v, _, _ := wire.Lookup(raw, "name")
		name, ok := wire.Unquote(v)
		if !ok {
			continue
		}
		if cur.has(name) {
			continue
		}
		if ti, ok := c.classify(raw); ok {
			added = append(added, ti)
		}
	}
	if len(added) == 0 {
		return
	}
	c.install(append(append([]ToolInfo{}, cur.order...), added...), "The upstream listed tools it had not listed before.")
}

// localToolsList answers tools/list with the extra tools only (an upstream
// without the tools capability). For revision 2026-07-28 and later the
// result has what that revision's ListToolsResult requires: resultType,
// and cacheScope "private" with ttlMs 0 (not cached across authorisation
// contexts, stale at once: the upstream may add tools later).
func (c *catalog) localToolsList(id []byte, version string) []byte {
	b := []byte(`{"tools":[`)
	for i, raw := range c.extras.Load().raws {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, raw...)
	}
	b = append(b, ']')
	if mcpver.RequiresResultType(version) {
		b = append(b, `,"cacheScope":"private","ttlMs":0`...)
	}
	b = append(b, '}')
	return resultLine(id, mcpver.Complete(b, version))
}

// withToolsCapability is a handshake answer with "tools":{} added to its
// capabilities when the upstream announces none and the proxy offers extra
// tools; otherwise the line unchanged.
func (c *catalog) withToolsCapability(line []byte, env wire.Envelope) []byte {
	if env.Result == nil || hasToolsCapability(env.Result) || !c.offersExtras() {
		return line
	}
	return addToolsCapability(line, env)
}
