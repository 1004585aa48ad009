package judge

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/report"
)

type callKind uint8

const (
	callWrite callKind = iota
	callRead
	callOther // unclassified or unknown tool
)

// pendingCall is the judge's record of one call id.
type pendingCall struct {
	kind callKind
	done bool
	att  *attempt // write calls only
	// sentSeq is the judge's event number of the call (reads only): a read
	// checks only failures answered before it was sent (behaviour §4.7).
	sentSeq uint64
}

func (j *Judge) onCall(ev Event) {
	if _, seen := j.calls[ev.Call]; seen {
		return
	}
	j.cov.calls++
	j.cov.byClass.Total++
	j.cov.inFlight++
	switch classOf(ev.Class) {
	case classify.Read:
		j.cov.byClass.Read++
		j.cov.readCalls++
		j.keys.readCall(&j.dirty)
		j.calls[ev.Call] = &pendingCall{kind: callRead, sentSeq: j.seq}
	case classify.Unclassified:
		j.cov.byClass.Unclassified++
		j.tools.uncl.add(ev.Tool)
		j.unclassifiedCall(ev)
		j.calls[ev.Call] = &pendingCall{kind: callOther}
	case classify.Write:
		j.cov.byClass.Write++
		j.cov.idemWrites += b2i(ev.Idempotent)
		j.writeCall(ev)
	default:
		j.cov.byClass.Unknown++
		j.tools.unknown.add(ev.Tool)
		j.calls[ev.Call] = &pendingCall{kind: callOther}
	}
}

// identity is what the judge derives from a write call's arguments.
type identity struct {
	// key is the built-in operation key (behaviour §4.1): "c:" and the
	// canonical key, or "r:" and a hash of the raw bytes when the
	// arguments could not be canonicalised (unidentified).
	key string
	// plugin is the first equivalence plugin's key ("e:"…), "" when no
	// plugin had an opinion; pluginName names that plugin.
	plugin, pluginName string
	canonical          []byte
	keys               []string
	// shown are keys as the report shows them: redacted with
	// Config.RedactArguments, else keys itself.
	shown        []string
	unidentified bool
	// caseClash: two member names of one object that differ only in
	// letter case (canon.Op.CaseClash); empty when none.
	caseClash [2]string
}

// identify gives the operation keys of a write call: the built-in
// canonical key (behaviour §4.1), always, and the first equivalence plugin's key
// when one has an opinion. Arguments that are not valid JSON (the relay
// normally rejects them) get a key from their raw bytes, so byte-identical
// repeats are still judged, and the call is marked unidentified.
func (j *Judge) identify(tool string, args json.RawMessage) identity {
	var id identity
	op, err := canon.Operation(tool, args, j.cfg.KeyFields)
	if err != nil {
		h := sha256.New()
		h.Write([]byte(tool))
		h.Write([]byte{0})
		h.Write(args)
		id.key = "r:" + hex.EncodeToString(h.Sum(nil))
		id.canonical = args
		id.unidentified = true
	} else {
		id.key = "c:" + op.Key
		id.canonical = op.Canonical
		id.caseClash = op.CaseClash
		for _, k := range op.Keys {
			// A key field holding "" or null carries no key.
			if k != "" && k != "null" {
				id.keys = append(id.keys, k)
			}
		}
		id.shown = id.keys
		if j.cfg.RedactArguments && len(id.keys) > 0 {
			m := redactedKeys(args, j.cfg.KeyFields)
			id.shown = make([]string, len(id.keys))
			for i, k := range id.keys {
				id.shown[i] = redactKey(m, k)
			}
		}
	}
	for i, eq := range j.cfg.Equivalences {
		// An error is no opinion; the plugin host counts the failure
		// (Config.PluginStatus), the judge only a panic.
		k, ok, err := callKey(eq, tool, args)
		if err != nil {
			j.noteFault(err, func() string { return pluginName(eq, "equivalence plugin "+strconv.Itoa(i+1)) },
				func() string { return fmt.Sprintf("equivalence key for %q: %v", tool, err) })
			continue
		}
		if ok {
			id.plugin = "e:" + tool + "\x00" + k
			id.pluginName = pluginName(eq, "equivalence plugin "+strconv.Itoa(i+1))
			break
		}
	}
	return id
}

func callKey(eq Equivalence, tool string, args json.RawMessage) (k string, ok bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			k, ok, err = "", false, pluginFault(fmt.Sprintf("panic: %v", r))
		}
	}()
	return eq.Key(tool, args)
}

// writeCall finds the operation of a write call. Plugins may only widen
// "same operation" (behaviour §4.1): the built-in key is looked up first and,
// when known, decides (literal equality is certain); else the equivalence
// plugin's key; else a pair-check plugin's Same. Whichever key is new
// becomes an alias of the chosen operation. When the plugin's key or a
// pair check points to another operation than the built-in key, the call
// stays with the built-in one and is a possible duplicate of the other.
func (j *Judge) writeCall(ev Event) {
	id := j.identify(ev.Tool, ev.Arguments)
	j.ident.note(ev.Tool, id)
	op := j.index.lookup(id.key)
	// join: the rule that made this call part of op although its built-in
	// key is not op's own (attemptLog[].joinedBy); nil when literal.
	var join *report.RuleInfo
	if op != nil && op.key != id.key {
		join = j.index.aliasBy[id.key]
	}
	var conflict *operation // another operation a plugin says this is
	conflictWhy := ""
	var conflictBy report.RuleInfo
	if id.plugin != "" {
		switch pop := j.index.lookup(id.plugin); {
		case op == nil:
			op = pop
			if pop != nil {
				join = &report.RuleInfo{Rule: report.RuleEquivKey, Plugin: id.pluginName}
			}
		case pop != nil && pop != op:
			conflict = pop
			conflictWhy = fmt.Sprintf("%s gives the arguments of %s the same key as those of %s, but literally they are operation %s", id.pluginName, ev.Tool, pop.id, op.id)
			conflictBy = report.RuleInfo{Rule: report.RuleEquivKey, Plugin: id.pluginName}
		}
	}
	// Any write of the tool means the agent did not give up silently on an
	// earlier failed key of that tool (behaviour §5 keySummary).
	j.keys.writeCall(ev.Tool, &j.dirty)

	var nr nearResult
	if ev.Idempotent {
		// behaviour §4.8: re-sending an idempotent write, in any notation, is
		// correct; the near-duplicate rule (§2.6) is for the others.
		conflict = nil
	} else {
		nr = j.nearCheck(ev.Tool, op, ev.Arguments, id.canonical)
	}
	switch {
	case nr.same == nil || nr.same == op:
	case op == nil:
		op = nr.same
		by := nr.sameBy // a copy: nr stays on the stack
		join = &by
	case conflict == nil:
		conflict = nr.same
		conflictWhy = fmt.Sprintf("a pair-check plugin judged the arguments of %s the same operation as %s, but their key makes them operation %s", ev.Tool, nr.same.id, op.id)
		conflictBy = nr.sameBy
	}
	if conflict != nil {
		nr = nearResult{possible: conflict, nPossib: 1, reason: conflictWhy, by: conflictBy, keyConflict: true}
	}
	if op != nil {
		if j.index.lookup(id.key) == nil {
			j.index.alias[id.key] = op
			j.index.aliasBy[id.key] = join
		}
		if id.plugin != "" && j.index.lookup(id.plugin) == nil {
			j.index.alias[id.plugin] = op
		}
	}
	if op == nil {
		// canon's result is the judge's own; arguments already in
		// canonical form (the usual case) are kept once, not three times
		// (a 100 MB argument would otherwise cost 300 MB).
		canonical := id.canonical
		if id.unidentified {
			canonical = slices.Clone(canonical) // the event's bytes
		}
		args := canonical
		if !bytes.Equal(ev.Arguments, canonical) {
			args = slices.Clone(ev.Arguments)
		}
		op = &operation{
			seq:        len(j.opSeq) + 1,
			key:        id.key,
			tool:       ev.Tool,
			canonical:  canonical,
			args:       args,
			shown:      showArguments(ev.Arguments, j.cfg.RedactArguments),
			dup:        dupDetails{minAnswerReads: -1},
			idempotent: ev.Idempotent,
		}
		op.id = "op-" + strconv.Itoa(op.seq)
		j.index.ops[id.key] = op
		if id.plugin != "" {
			j.index.alias[id.plugin] = op
		}
		j.opSeq = append(j.opSeq, op)
		j.backend.newOperation(j, op)
	}
	if nr.same == nil || nr.keyConflict {
		op.nearby.record(op, nr)
	}
	j.rateWaits.check(op, ev.Time)

	// An operation stays idempotent only while every call says so (a tool
	// re-listed without the hint is judged strictly from then on).
	op.idempotent = op.idempotent && ev.Idempotent
	a := &attempt{
		session: ev.Session,
		call:    ev.Call,
		op:      op,
		sent:    ev.Time,
		sendSeq: j.seq,
		readsAt: j.cov.readsOK,
		join:    join,
	}
	a.waited, a.hasWait = op.fail.waitedSince(ev.Time)
	if join != nil && op.joinedBy == nil {
		op.joinedBy = join
	}
	op.n.attempts++
	op.n.pending++
	j.noteProcessAttempt(op, a)
	if len(op.log) < maxAttemptLog {
		if len(op.log) > 0 && !bytes.Equal(ev.Arguments, op.args) {
			// Shown only when the text differs from operations[].arguments
			// (behaviour §5.4); computed once, for listed attempts only.
			if s := showArguments(ev.Arguments, j.cfg.RedactArguments); !bytes.Equal(s.value, op.shown.value) || s.truncated != op.shown.truncated || s.invalid != op.shown.invalid {
				a.shown = &s
			}
		}
		op.log = append(op.log, a)
	}
	if len(id.keys) > 0 {
		a.keyed = true
		a.keyJoin = strings.Join(id.keys, "\x00")
		for i, k := range id.keys {
			op.keys.add(k, id.shown[i])
			a.keys = append(a.keys, j.keys.attempt(ev.Tool, k, id.shown[i], a, j.cov.readsOK, &j.dirty))
		}
	} else if ev.AcceptsKey {
		op.keys.keyless++
	}
	a.re = resendFacts{toolCallID: toolCallID(ev.Params), literal: join == nil && op.key == id.key, reqSeq: ev.RequestSeq}
	if prev := op.last; prev != nil {
		a.re.resentBy = resentBy(a, prev, ev.Time)
	}
	op.last = a
	j.calls[ev.Call] = &pendingCall{kind: callWrite, att: a}
	j.refresh(op)
	j.addCandidate(op)
}

// unclassifiedCall counts repeats of an unclassified tool with the same
// arguments (key fields stripped, canonical JSON).
func (j *Judge) unclassifiedCall(ev Event) {
	key := "u:" + j.identifyPlain(ev.Tool, ev.Arguments)
	u := j.uncl.byArgs[key]
	if u == nil {
		u = &unclState{tool: ev.Tool}
		j.uncl.byArgs[key] = u
	}
	u.count++
	if u.count == 2 {
		u.seq = len(j.uncl.seq) + 1
		u.id = "u-" + strconv.Itoa(u.seq)
		j.uncl.seq = append(j.uncl.seq, u)
	}
	if u.count >= 2 {
		u.dirty = true
	}
}

// identifyPlain is the built-in operation key only (no plugins: they are
// about write calls).
func (j *Judge) identifyPlain(tool string, args json.RawMessage) string {
	op, err := canon.Operation(tool, args, j.cfg.KeyFields)
	if err != nil {
		sum := sha256.Sum256(append([]byte(tool+"\x00"), args...))
		return "r:" + hex.EncodeToString(sum[:])
	}
	return op.Key
}

// msBetween is the whole milliseconds from a to b, never negative.
func msBetween(a, b time.Time) int64 {
	d := b.Sub(a).Milliseconds()
	if d < 0 {
		return 0
	}
	return d
}
