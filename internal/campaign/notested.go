package campaign

// Kinds of NOT_TESTED runs (behaviour §9.3), counted by the summary and
// named by the gate.
const (
	KindNeverConnected = "never connected"
	KindAgentCrashed   = "agent crashed" // non-zero exit or a signal before any write
	KindAgentTimedOut  = "agent timed out"
	KindNoWrite        = "no write"
	KindPossibleDup    = "possible duplicate"
	KindUnknownRetried = "unknown outcome retried"
	KindSeveralProxies = "several proxies" // the agent started more than one proxy process
	KindOther          = "other"
)

// addKind counts NOT_TESTED record r in ks: by its kind, and for "other"
// (also a record without a kind, from an older campaign) by its reason.
func addKind(ks []KindCount, r Record) []KindCount {
	k := KindCount{Kind: r.NotTestedKind, Runs: 1}
	if k.Kind == "" {
		k.Kind = KindOther
	}
	if k.Kind == KindOther {
		k.Reason = r.Reason
	}
	for i := range ks {
		if ks[i].Kind == k.Kind && ks[i].Reason == k.Reason {
			ks[i].Runs++
			return ks
		}
	}
	return append(ks, k)
}

// beforeWriteKind is the kind of a run that is NOT_TESTED because no write
// reached the proxy: how the agent ended, else what fallback says.
func beforeWriteKind(ex agentExit, fallback string) string {
	switch {
	case ex.timedOut:
		return KindAgentTimedOut
	case ex.signal != "" || ex.code != nil && *ex.code != 0:
		return KindAgentCrashed
	}
	return fallback
}
