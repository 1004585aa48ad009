package judge

// keyState is the state of one idempotency-key value of one tool.
type keyState struct {
	seq int
	// key is the value as shown (redacted with Config.RedactArguments).
	key, tool   string
	attempts    int
	executions  int
	existed     bool
	firstReads  int
	lastReads   int
	last        *attempt
	silent      bool
	dirty       bool
	inDirty     bool
	inSilentAll bool
}

// keyBook is the idempotency-key values of every write tool
// (report.keySummary) and the keys whose last attempt failed, waiting for
// a read (any tool) or a write of their tool (agentGaveUpSilently).
type keyBook struct {
	byValue    map[string]*keyState
	seq        []*keyState
	silentAll  []*keyState
	silentTool map[string][]*keyState
}

// attempt records an attempt a with key value k of tool; shown is k as
// the report shows it, readsOK the successful reads so far.
func (b *keyBook) attempt(tool, k, shown string, a *attempt, readsOK int, d *dirtyLists) *keyState {
	mk := tool + "\x00" + k
	ks := b.byValue[mk]
	if ks == nil {
		ks = &keyState{seq: len(b.seq) + 1, key: shown, tool: tool, firstReads: readsOK}
		b.byValue[mk] = ks
		b.seq = append(b.seq, ks)
	}
	ks.attempts++
	if ks.executions > 0 {
		ks.existed = true
	}
	ks.lastReads = readsOK
	ks.last = a
	ks.silent = false
	d.key(ks)
	return ks
}

// answered settles the keys whose last attempt is a: after a failure
// answer they are silent until a read call or a write of the tool follows.
func (b *keyBook) answered(a *attempt, failure bool, d *dirtyLists) {
	for _, ks := range a.keys {
		if ks.last != a {
			continue
		}
		ks.silent = failure
		if failure {
			if !ks.inSilentAll {
				ks.inSilentAll = true
				b.silentAll = append(b.silentAll, ks)
			}
			b.silentTool[a.op.tool] = append(b.silentTool[a.op.tool], ks)
		}
		d.key(ks)
	}
}

// readCall: any read call means the agent did not give up silently on a
// failed key.
func (b *keyBook) readCall(d *dirtyLists) {
	for _, ks := range b.silentAll {
		ks.inSilentAll = false
		if ks.silent {
			ks.silent = false
			d.key(ks)
		}
	}
	clear(b.silentAll)
	b.silentAll = b.silentAll[:0]
}

// writeCall: any write of the tool means the agent did not give up
// silently on an earlier failed key of that tool (behaviour §5 keySummary).
func (b *keyBook) writeCall(tool string, d *dirtyLists) {
	list, ok := b.silentTool[tool]
	if !ok {
		return
	}
	for _, ks := range list {
		if ks.silent {
			ks.silent = false
			d.key(ks)
		}
	}
	delete(b.silentTool, tool)
}
