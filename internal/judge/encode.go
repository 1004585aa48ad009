package judge

import (
	"encoding/json"
	"strconv"

	"github.com/cuonztech/agent-harness/internal/report"
)

// fileCache holds the report-file encodings between AppendFile calls.
type fileCache struct {
	// Per operation, in order of first attempt: its operations[] entry, and
	// its violations and observations (each entry with a leading comma;
	// empty when none or when the operation is not live).
	ops, viol, obs arena
	keys           arena // keySummary entries, in order of first use
	scratch        []byte

	uncl []byte // comma-separated UNCLASSIFIED_REPEAT entries

	// Small sections, re-encoded only when what they are computed from
	// changed.
	coverage cached[coverageKey]
	score    cached[scoreKey]
	patches  cached[patchKey]
}

// cached is one encoding with the key it was computed from.
type cached[K comparable] struct {
	ok  bool
	key K
	enc []byte
}

// get returns the cached encoding for key, calling encode on a miss.
func (c *cached[K]) get(key K, encode func(dst []byte) []byte) []byte {
	if !c.ok || c.key != key {
		c.ok, c.key, c.enc = true, key, encode(c.enc[:0])
	}
	return c.enc
}

// coverageKey is everything coverage() reads (the name sets only grow, so
// their lengths identify them).
type coverageKey struct {
	calls                            report.CallCounts
	unclTools, unknownTools          int
	fired, ended                     bool
	injected, ops, readsOK, inFlight int
	dropped                          int
}

// scoreKey is everything scoreOf reads.
type scoreKey struct {
	verdict string
	t       tally
}

// patchKey is everything patches() reads (an operation's tool and id never
// change).
type patchKey struct {
	ghost, idem, retry, unverified           *operation
	ghostExtra, extras, retries, unverifiedN int
	ghostKinds, unverifiedKinds              uint64 // faultTally generations
}

// AppendFile appends the whole report-file JSON object (the envelope of
// behaviour §5 with report, score and patches) to dst and returns the extended
// buffer. Only operations, keys and repeats that changed since the previous
// call are encoded again; everything else is copied from a cache, so the
// cost per call is a copy of the report plus O(changes) encoding.
//
// The embedded `report` is byte-identical to json.Marshal(j.Report()).
func (j *Judge) AppendFile(dst []byte, meta report.FileMeta) []byte {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.encodeDirty()

	plugins := j.pluginFailures()
	verdict, reason := j.verdictOf(plugins)
	if meta.StartupError != "" {
		verdict, reason = report.VerdictNotTested, "The proxy could not start, so nothing was tested: "+meta.StartupError
	}
	status := meta.Status
	if status == "" {
		status = "running"
	}
	mode := meta.Mode
	if mode == "" {
		mode = "deterministic"
		if j.cfg.Scenario == "chaos" {
			mode = "chaos"
		}
	}

	dst = append(dst, `{"status":`...)
	dst = appendJSON(dst, status)
	dst = append(dst, `,"verdict":`...)
	dst = appendJSON(dst, verdict)
	dst = append(dst, `,"certification":"`+report.Certification+`","harnessVersion":"`+report.HarnessVersion+`","kind":`...)
	dst = appendJSON(dst, j.cfg.kind())
	dst = append(dst, `,"scenario":`...)
	if j.cfg.Scenario == "" {
		dst = append(dst, "null"...)
	} else {
		dst = appendJSON(dst, j.cfg.Scenario)
	}
	dst = append(dst, `,"mode":`...)
	dst = appendJSON(dst, mode)
	if mode == "chaos" && meta.Chaos != nil {
		dst = append(dst, `,"chaos":`...)
		dst = appendJSON(dst, meta.Chaos)
	}
	tr := meta.Transport
	if tr.Agent == "" {
		tr.Agent = "stdio"
	}
	if tr.Upstream == "" {
		tr.Upstream = "stdio"
	}
	dst = append(dst, `,"transport":`...)
	dst = appendJSON(dst, tr)
	if j.sess.list != nil {
		dst = append(dst, `,"sessions":`...)
		dst = appendJSON(dst, j.sess.list)
	}
	if meta.StartupError != "" {
		dst = append(dst, `,"startupError":`...)
		dst = appendJSON(dst, meta.StartupError)
	}
	dst = append(dst, `,"report":`...)
	dst = j.appendReport(dst, verdict, reason, plugins)
	dst = append(dst, `,"score":`...)
	t := j.tally()
	dst = append(dst, j.enc.score.get(scoreKey{verdict, t}, func(b []byte) []byte {
		return appendJSON(b, scoreOf(verdict, t))
	})...)
	dst = append(dst, `,"patches":`...)
	pk := patchKey{
		ghost: j.lists[catGhostExtra].head, idem: j.lists[catIdemExtra].head,
		retry: j.lists[catRetryAfter].head, unverified: j.lists[catUnverified].head,
		ghostExtra: j.tot.ghostExtra, extras: j.tot.extras, retries: j.tot.retry,
		unverifiedN: j.lists[catUnverified].n,
		ghostKinds:  j.tot.ghostKinds.gen, unverifiedKinds: j.tot.unverifiedKinds.gen,
	}
	dst = append(dst, j.enc.patches.get(pk, func(b []byte) []byte {
		return appendJSON(b, j.patches())
	})...)
	dst = append(dst, `,"toolClassification":`...)
	dst = appendRaw(dst, meta.ToolClassification, "[]")
	if meta.Plugins != nil {
		dst = append(dst, `,"plugins":`...)
		dst = appendRaw(dst, meta.Plugins, "[]")
	}
	return append(dst, '}')
}

// appendReport writes the report object from the caches, in the field order
// of Report.
func (j *Judge) appendReport(dst []byte, verdict, reason string, plugins []report.PluginFailure) []byte {
	dst = append(dst, `{"verdict":`...)
	dst = appendJSON(dst, verdict)
	dst = append(dst, `,"verdictReason":`...)
	dst = appendJSON(dst, reason)
	dst = append(dst, `,"certification":"`+report.Certification+`","kind":`...)
	dst = appendJSON(dst, j.cfg.kind())

	dst = append(dst, `,"operations":[`...)
	first := true
	dst = j.enc.ops.emit(dst, &first)
	dst = append(dst, `],"violations":[`...)
	first = true
	dst = j.enc.viol.emit(dst, &first)
	dst = append(dst, `],"observations":[`...)
	first = true
	dst = j.enc.obs.emit(dst, &first)
	dst = appendItem(dst, j.enc.uncl, &first)
	dst = append(dst, `],"coverage":`...)
	ck := coverageKey{
		calls: j.cov.byClass, unclTools: len(j.tools.uncl.names), unknownTools: len(j.tools.unknown.names),
		fired: j.cov.scenarioFired, ended: j.cov.ended,
		injected: j.cov.injected, ops: j.tot.ops, readsOK: j.cov.readsOK, inFlight: j.cov.inFlight,
		dropped: j.cov.dropped,
	}
	dst = append(dst, j.enc.coverage.get(ck, func(b []byte) []byte {
		return appendJSON(b, j.coverage())
	})...)
	dst = append(dst, `,"keySummary":[`...)
	first = true
	dst = j.enc.keys.emit(dst, &first)
	dst = append(dst, `],"pluginFailures":[`...)
	for i, p := range plugins {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSON(dst, p)
	}
	return append(dst, `],"honesty":"`+report.NotMeasured+`"}`...)
}

// encodeDirty re-encodes what changed since the last AppendFile.
func (j *Judge) encodeDirty() {
	e := &j.enc
	for _, op := range j.dirty.ops {
		op.inDirty = false
		if !op.dirty {
			continue
		}
		op.dirty = false
		i := op.seq - 1
		if !op.c.live {
			e.ops.set(i, nil)
			e.viol.set(i, nil)
			e.obs.set(i, nil)
			continue
		}
		e.scratch = appendJSON(append(e.scratch[:0], ','), j.opInfo(op))
		e.ops.set(i, e.scratch)
		e.scratch = appendEntries(e.scratch[:0], op.violations())
		e.viol.set(i, e.scratch)
		e.scratch = appendEntries(e.scratch[:0], op.observations())
		e.obs.set(i, e.scratch)
	}
	clear(j.dirty.ops)
	j.dirty.ops = j.dirty.ops[:0]
	for _, ks := range j.dirty.keys {
		ks.inDirty = false
		if ks.dirty {
			ks.dirty = false
			e.scratch = appendJSON(append(e.scratch[:0], ','), ks.info())
			e.keys.set(ks.seq-1, e.scratch)
		}
	}
	clear(j.dirty.keys)
	j.dirty.keys = j.dirty.keys[:0]
	for _, a := range []*arena{&e.ops, &e.viol, &e.obs, &e.keys} {
		if a.needsCompaction() {
			a.compact()
		}
	}
	dirty := false
	for _, u := range j.uncl.seq {
		if u.dirty {
			u.dirty, dirty = false, true
		}
	}
	if dirty {
		e.uncl = e.uncl[:0]
		first := true
		for _, u := range j.uncl.seq {
			e.uncl = appendItem(e.uncl, appendJSON(nil, u.observation()), &first)
		}
	}
}

// appendEntries appends the encoding of each item with a leading comma.
func appendEntries[T any](dst []byte, items []T) []byte {
	for _, it := range items {
		dst = appendJSON(append(dst, ','), it)
	}
	return dst
}

// appendItem appends a (possibly empty) comma-separated run of entries.
func appendItem(dst, item []byte, first *bool) []byte {
	if len(item) == 0 {
		return dst
	}
	if !*first {
		dst = append(dst, ',')
	}
	*first = false
	return append(dst, item...)
}

// appendJSON appends the encoding/json encoding of v. The values are the
// judge's own types, which always encode.
func appendJSON(dst []byte, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		// Unreachable for the judge's types; keep the file valid JSON.
		return append(dst, strconv.Quote("encoding error: "+err.Error())...)
	}
	return append(dst, b...)
}

// appendRaw appends raw JSON supplied by the caller, or def when it is nil
// or not valid JSON (the file must stay parseable).
func appendRaw(dst []byte, raw json.RawMessage, def string) []byte {
	if len(raw) == 0 || !json.Valid(raw) {
		return append(dst, def...)
	}
	return append(dst, raw...)
}
