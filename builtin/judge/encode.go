package judge

import (
	"encoding/json"
	"strconv"
)

// FileMeta is what the report-file envelope needs beyond the judge's own
// state (SPEC §6, TEAM.md). Zero values: Status "running", Mode
// "deterministic" ("chaos" when the judge's scenario is "chaos"), no chaos
// object, no startup error, toolClassification [], no plugins field.
type FileMeta struct {
	// Status is "starting", "running", "finished" or "failed".
	Status string
	// StartupError is set on a failed start; the verdict is then NOT_TESTED.
	StartupError string
	// Mode is "deterministic" or "chaos".
	Mode string
	// Chaos is written in chaos mode only.
	Chaos *ChaosInfo
	// ToolClassification is the raw JSON array
	// [{"name","class","reason","keyFields":[...]}]; nil writes [].
	ToolClassification json.RawMessage
	// Plugins is the raw JSON array of loaded plugins; nil omits the field.
	Plugins json.RawMessage
}

// opEncoding caches the encoded report entries of one operation: its
// operations[] entry, and its violations and observations as
// comma-separated entries (empty when none).
type opEncoding struct {
	op, viol, obs []byte
}

// fileCache holds encodings that change rarely.
type fileCache struct {
	unclDirty bool
	uncl      []byte // comma-separated UNCLASSIFIED_REPEAT entries
}

// AppendFile appends the whole report-file JSON object (the envelope of
// SPEC §6 with report, score and patches) to dst and returns the extended
// buffer. Only operations, keys and repeats that changed since the previous
// call are encoded again; everything else is copied from a cache, so the
// cost per call is a copy of the report plus O(changes) encoding.
//
// The embedded `report` is byte-identical to json.Marshal(j.Report()).
func (j *Judge) AppendFile(dst []byte, meta FileMeta) []byte {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.encodeDirty()

	verdict, reason := j.verdict()
	if meta.StartupError != "" {
		verdict, reason = VerdictNotTested, "The proxy could not start, so nothing was tested: "+meta.StartupError
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
	dst = append(dst, `,"certification":"`+Certification+`","harnessVersion":"`+HarnessVersion+`","kind":`...)
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
	if meta.StartupError != "" {
		dst = append(dst, `,"startupError":`...)
		dst = appendJSON(dst, meta.StartupError)
	}
	dst = append(dst, `,"report":`...)
	dst = j.appendReport(dst, verdict, reason)
	dst = append(dst, `,"score":`...)
	dst = appendJSON(dst, scoreOf(verdict, j.tally()))
	dst = append(dst, `,"patches":`...)
	dst = appendJSON(dst, j.patches())
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
func (j *Judge) appendReport(dst []byte, verdict, reason string) []byte {
	dst = append(dst, `{"verdict":`...)
	dst = appendJSON(dst, verdict)
	dst = append(dst, `,"verdictReason":`...)
	dst = appendJSON(dst, reason)
	dst = append(dst, `,"certification":"`+Certification+`","kind":`...)
	dst = appendJSON(dst, j.cfg.kind())

	dst = append(dst, `,"operations":[`...)
	first := true
	for _, op := range j.opSeq {
		if op.c.live {
			dst = appendItem(dst, op.enc.op, &first)
		}
	}
	dst = append(dst, `],"violations":[`...)
	first = true
	for _, op := range j.opSeq {
		if op.c.live {
			dst = appendItem(dst, op.enc.viol, &first)
		}
	}
	dst = append(dst, `],"observations":[`...)
	first = true
	for _, op := range j.opSeq {
		if op.c.live {
			dst = appendItem(dst, op.enc.obs, &first)
		}
	}
	dst = appendItem(dst, j.enc.uncl, &first)
	dst = append(dst, `],"coverage":`...)
	dst = appendJSON(dst, j.coverage())
	dst = append(dst, `,"keySummary":[`...)
	first = true
	for _, ks := range j.keySeq {
		dst = appendItem(dst, ks.enc, &first)
	}
	dst = append(dst, `],"pluginFailures":[`...)
	for i, p := range j.plugins {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSON(dst, p)
	}
	return append(dst, `],"honesty":"`+NotMeasured+`"}`...)
}

// encodeDirty re-encodes what changed since the last AppendFile.
func (j *Judge) encodeDirty() {
	for _, op := range j.dirtyOps {
		op.inDirty = false
		if !op.dirty {
			continue
		}
		op.dirty = false
		op.enc.op = appendJSON(op.enc.op[:0], op.info())
		op.enc.viol = appendEntries(op.enc.viol[:0], op.violations())
		op.enc.obs = appendEntries(op.enc.obs[:0], op.observations())
	}
	clear(j.dirtyOps)
	j.dirtyOps = j.dirtyOps[:0]
	for _, ks := range j.dirtyKeys {
		ks.inDirty = false
		if ks.dirty {
			ks.dirty = false
			ks.enc = appendJSON(ks.enc[:0], ks.info())
		}
	}
	clear(j.dirtyKeys)
	j.dirtyKeys = j.dirtyKeys[:0]
	dirty := false
	for _, u := range j.unclSeq {
		if u.dirty {
			u.dirty, dirty = false, true
		}
	}
	if dirty {
		j.enc.uncl = j.enc.uncl[:0]
		first := true
		for _, u := range j.unclSeq {
			j.enc.uncl = appendItem(j.enc.uncl, appendJSON(nil, u.observation()), &first)
		}
	}
}

func appendEntries[T any](dst []byte, items []T) []byte {
	for i, it := range items {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSON(dst, it)
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
