package judge

import "github.com/cuonztech/agent-harness/internal/report"

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

	// plugins are the plugin failures of the AppendFile call in progress.
	plugins []report.PluginFailure
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
	ghost, idem, retry, unverified, client   *operation
	ghostExtra, extras, retries, unverifiedN int
	clientExtras, clientGhost                int
	ghostKinds, unverifiedKinds              uint64 // faultTally generations
}

// AppendFile appends the whole report-file JSON object (the envelope of
// behaviour §5 with report, score and patches; report.AppendFile) to dst
// and returns the extended buffer. Only operations, keys and repeats that
// changed since the previous call are encoded again; everything else is
// copied from a cache, so the cost per call is a copy of the report plus
// O(changes) encoding.
//
// The embedded `report` is byte-identical to json.Marshal(j.Report()).
func (j *Judge) AppendFile(dst []byte, meta report.FileMeta) []byte {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.encodeDirty()
	j.enc.plugins = j.pluginFailures()
	verdict, reason := j.verdictOf(j.enc.plugins)
	head := report.FileHead{Verdict: verdict, Reason: reason, Kind: j.cfg.kind(), Scenario: j.cfg.Scenario, Sessions: j.sess.list,
		State: j.stateInfo()}
	dst = report.AppendFile(dst, meta, head, (*fileBody)(j))
	j.enc.plugins = nil
	return dst
}

// fileBody is the Judge as the writer of its cached report-file sections
// (report.FileBody, report.ReportBody); called with j.mu held.
type fileBody Judge

func (f *fileBody) AppendReport(dst []byte, verdict, reason string) []byte {
	return report.AppendReportObject(dst, verdict, reason, f.cfg.kind(), f, f.enc.plugins)
}

func (f *fileBody) AppendScore(dst []byte, verdict string) []byte {
	j := (*Judge)(f)
	t := j.tally()
	return append(dst, j.enc.score.get(scoreKey{verdict, t}, func(b []byte) []byte {
		return report.AppendJSON(b, scoreOf(verdict, t))
	})...)
}

func (f *fileBody) AppendPatches(dst []byte) []byte {
	j := (*Judge)(f)
	pk := patchKey{
		ghost: j.lists[catGhostExtra].head, idem: j.lists[catIdemExtra].head,
		retry: j.lists[catRetryAfter].head, unverified: j.lists[catUnverified].head,
		ghostExtra: j.tot.ghostExtra, extras: j.tot.extras, retries: j.tot.retry,
		unverifiedN: j.lists[catUnverified].n,
		client:      j.lists[catClientRetry].head, clientExtras: j.tot.clientExtras, clientGhost: j.tot.clientGhost,
		ghostKinds: j.tot.ghostKinds.gen, unverifiedKinds: j.tot.unverifiedKinds.gen,
	}
	return append(dst, j.enc.patches.get(pk, func(b []byte) []byte {
		return report.AppendJSON(b, j.patches())
	})...)
}

func (f *fileBody) AppendOperations(dst []byte) []byte {
	first := true
	return f.enc.ops.emit(dst, &first)
}

func (f *fileBody) AppendViolations(dst []byte) []byte {
	first := true
	return f.enc.viol.emit(dst, &first)
}

func (f *fileBody) AppendObservations(dst []byte) []byte {
	first := true
	dst = f.enc.obs.emit(dst, &first)
	return appendItem(dst, f.enc.uncl, &first)
}

func (f *fileBody) AppendCoverage(dst []byte) []byte {
	j := (*Judge)(f)
	ck := coverageKey{
		calls: j.cov.byClass, unclTools: len(j.tools.uncl.names), unknownTools: len(j.tools.unknown.names),
		fired: j.cov.scenarioFired, ended: j.cov.ended,
		injected: j.cov.injected, ops: j.tot.ops, readsOK: j.cov.readsOK, inFlight: j.cov.inFlight,
		dropped: j.cov.dropped,
	}
	return append(dst, j.enc.coverage.get(ck, func(b []byte) []byte {
		return report.AppendJSON(b, j.coverage())
	})...)
}

func (f *fileBody) AppendKeySummary(dst []byte) []byte {
	first := true
	return f.enc.keys.emit(dst, &first)
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
		e.scratch = report.AppendJSON(append(e.scratch[:0], ','), j.opInfo(op))
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
			e.scratch = report.AppendJSON(append(e.scratch[:0], ','), ks.info())
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
			e.uncl = appendItem(e.uncl, report.AppendJSON(nil, u.observation()), &first)
		}
	}
}

// appendEntries appends the encoding of each item with a leading comma.
func appendEntries[T any](dst []byte, items []T) []byte {
	for _, it := range items {
		dst = report.AppendJSON(append(dst, ','), it)
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
