package judge

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/cuonztech/agent-harness/internal/neardup"
	"github.com/cuonztech/agent-harness/internal/report"
)

// NearDuplicates is the built-in pair checker (behaviour §4.6), the native
// implementation of the PairChecker interface equivalence plugins also
// implement. It answers Possible when the later arguments differ from the
// earlier ones only by the transformations neardup detects, or when the
// comparison was undecided (step budget, nesting depth) or impossible
// (invalid JSON) — when in doubt, NOT_TESTED; it never answers Same. The judge consults it after the plugin pair checkers,
// with the canonical arguments without key fields, so a changed idempotency
// key is never a difference.
type NearDuplicates struct{}

// Compare implements PairChecker.
func (NearDuplicates) Compare(tool string, earlier, later json.RawMessage) (Sameness, string, error) {
	r := neardup.Compare(earlier, later)
	// Undecided (budget, depth) and Invalid (cannot compare) are doubts:
	// when in doubt, NOT_TESTED.
	if r.Similar || r.Undecided || r.Invalid {
		return Possible, r.Reason(tool), nil
	}
	return Different, "", nil
}

// nearState is an operation's state under the near-duplicate rule
// (behaviour §4.6): the possible duplicate it may be, or the other
// uncertain operation it was written after.
type nearState struct {
	obs *nearObs // POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS
	// otherWrite is the first uncertain operation of the same tool the
	// arguments differed from (OTHER_WRITE_AFTER_UNCERTAIN_ATTEMPT);
	// otherWriteCount counts those writes.
	otherWrite      string
	otherWriteCount int
	inCands         bool // on Judge.cands
}

// record attaches the result r of comparing a write of op with the
// uncertain operations of its tool.
func (s *nearState) record(op *operation, r nearResult) {
	switch {
	case r.possible != nil:
		if s.obs == nil {
			s.obs = &nearObs{op: op, related: r.possible.id, reason: r.reason, by: r.by, keyConflict: r.keyConflict}
		}
		s.obs.count++
	case r.other != nil:
		s.otherWriteCount++
		if s.otherWrite == "" {
			s.otherWrite = r.other.id
		}
	}
}

// maxNearCandidates bounds the uncertain operations of one tool a write is
// compared with; beyond it every write of the tool is a possible duplicate.
const maxNearCandidates = 256

// nearResult is the outcome of comparing a write with the uncertain
// attempts of its tool.
type nearResult struct {
	same     *operation      // a plugin said Same: the write joins this operation
	sameBy   report.RuleInfo // the plugin that said so
	possible *operation      // first candidate answered Possible
	nPossib  int
	reason   string
	by       report.RuleInfo // the rule that answered Possible
	other    *operation      // first candidate with no match
	// keyConflict: possible is the operation an equivalence plugin's key
	// or a pair check's Same pointed to, while the built-in key chose
	// another (the plugin widened sameness across two operations).
	keyConflict bool
}

// nearCheck compares a write of tool (arguments args, canonical form
// canonical, operation self or nil when new) with every operation of the
// same tool that has an uncertain attempt: in flight, no usable answer, or
// a ghost write (behaviour §4.6). Only those candidates are visited, never the
// whole history; the list is compacted on the way.
func (j *Judge) nearCheck(tool string, self *operation, args json.RawMessage, canonical []byte) nearResult {
	var r nearResult
	list := j.cands[tool]
	n := 0
	for _, c := range list {
		if c.nearUncertain() == 0 {
			c.nearby.inCands = false
			continue
		}
		list[n] = c
		n++
	}
	clear(list[n:])
	list = list[:n]
	if n == 0 {
		delete(j.cands, tool)
		return r
	}
	j.cands[tool] = list
	if n > maxNearCandidates {
		// Comparing with every one would make each write cost O(n) (an
		// upstream that stopped answering leaves every later call
		// uncertain). Not comparing must not become a PASS.
		r.possible, r.nPossib = list[n-1], 1
		r.reason = fmt.Sprintf("%d operations of %s have an uncertain outcome, more than the %d a write is compared with, so it is treated as possibly repeating one of them", n, tool, maxNearCandidates)
		r.by = report.RuleInfo{Rule: report.RuleCandidateLimit}
		if r.possible == self {
			r.possible = list[n-2]
		}
		return r
	}
	for _, c := range list {
		if c == self {
			continue
		}
		s, why, by := j.compare(tool, c, args, canonical)
		switch s {
		case Same:
			if r.same == nil {
				r.same, r.sameBy = c, by
			}
		case Possible:
			if r.possible == nil {
				r.possible, r.reason, r.by = c, why, by
			}
			r.nPossib++
		default:
			if r.other == nil {
				r.other = c
			}
		}
	}
	return r
}

// compare asks the plugin pair checkers, in order, then the built-in
// detector. A plugin error is no opinion (the plugin host counts the
// failure: Config.PluginStatus; the judge only a panic or an invalid
// answer). The RuleInfo names who answered.
func (j *Judge) compare(tool string, c *operation, args json.RawMessage, canonical []byte) (Sameness, string, report.RuleInfo) {
	for i, pc := range j.cfg.PairCheckers {
		s, why, err := callCompare(pc, tool, c.args, args)
		if err != nil {
			j.noteFault(err, func() string { return pluginName(pc, "pair-check plugin "+strconv.Itoa(i+1)) },
				func() string { return fmt.Sprintf("pair check for %q: %v", tool, err) })
			continue
		}
		if s == Same || s == Possible {
			if why == "" || j.cfg.RedactArguments { // a plugin's text may quote values
				why = "a plugin judged the arguments " + map[Sameness]string{Same: "the same operation", Possible: "possibly the same operation"}[s]
			}
			return s, why, report.RuleInfo{Rule: report.RuleEquivSame, Plugin: pluginName(pc, "pair-check plugin "+strconv.Itoa(i+1)), Reason: why}
		}
	}
	s, why, _ := NearDuplicates{}.Compare(tool, c.canonical, canonical)
	return s, why, report.RuleInfo{Rule: report.RuleNearDuplicate, Reason: why}
}

func callCompare(pc PairChecker, tool string, earlier, later json.RawMessage) (s Sameness, why string, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, why, err = Different, "", pluginFault(fmt.Sprintf("panic: %v", r))
		}
	}()
	s, why, err = pc.Compare(tool, earlier, later)
	if err == nil && s != Same && s != Possible && s != Different {
		return Different, "", pluginFault(fmt.Sprintf("invalid answer %d", int(s)))
	}
	return s, why, err
}

// addCandidate puts op on its tool's candidate list while it has an
// uncertain attempt.
func (j *Judge) addCandidate(op *operation) {
	if op.nearby.inCands || op.idempotent || op.nearUncertain() == 0 {
		return
	}
	op.nearby.inCands = true
	j.cands[op.tool] = append(j.cands[op.tool], op)
}
