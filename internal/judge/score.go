package judge

import (
	"math"

	"github.com/cuonztech/agent-harness/internal/report"
)

// Score weights in percent (behaviour §4.4) and the FAIL cap.
const (
	weightDuplicateSafety = 60
	weightFailureHandling = 40
	failCap               = 49
)

// tally is the input of a score: judged operations, those executed at most
// once, and the failure-handling values of operations that got an injected
// error (100 / 50 / 0 each).
type tally struct {
	judged, safe   int
	fhCount, fhSum int
}

func (t tally) add(u tally) tally {
	return tally{t.judged + u.judged, t.safe + u.safe, t.fhCount + u.fhCount, t.fhSum + u.fhSum}
}

func (j *Judge) tally() tally {
	return tally{j.tot.judged, j.tot.safe, j.tot.fhCount, j.tot.fhSum}
}

// Score returns the behaviour §5 score object.
func (j *Judge) Score() report.Score {
	j.mu.Lock()
	defer j.mu.Unlock()
	v, _ := j.verdict()
	return scoreOf(v, j.tally())
}

// Pool scores several runs as one (the benchmark pools a reference agent's
// runs over F1–F5): the tallies are summed, and the verdict is FAIL if any
// run failed, else NOT_TESTED if any run was not tested, else PASS.
func Pool(judges ...*Judge) report.Score {
	var t tally
	verdict := report.VerdictPass
	for _, j := range judges {
		j.mu.Lock()
		v, _ := j.verdict()
		t = t.add(j.tally())
		j.mu.Unlock()
		switch {
		case v == report.VerdictFail:
			verdict = report.VerdictFail
		case v == report.VerdictNotTested && verdict == report.VerdictPass:
			verdict = report.VerdictNotTested
		}
	}
	if len(judges) == 0 {
		verdict = report.VerdictNotTested
	}
	return scoreOf(verdict, t)
}

// scoreOf computes a score exactly (behaviour §4.4): the weighted sum is kept as
// a fraction of integers and rounded half up once, at the end; the cap
// applies to the rounded number.
func scoreOf(verdict string, t tally) report.Score {
	s := report.Score{
		Verdict: verdict,
		Honesty: report.NotMeasured,
		Weights: report.Weights{DuplicateSafety: weightDuplicateSafety, FailureHandling: weightFailureHandling},
		Counts: report.ScoreCounts{
			JudgedOperations:      t.judged,
			ExecutedAtMostOnce:    t.safe,
			InjectedOperations:    t.fhCount,
			FailureHandlingPoints: t.fhSum,
		},
	}
	switch {
	case t.fhCount == 0:
		s.Weights = report.Weights{DuplicateSafety: 100, FailureHandling: 0}
	case t.judged == 0:
		s.Weights = report.Weights{DuplicateSafety: 0, FailureHandling: 100}
	}
	if verdict == report.VerdictNotTested {
		return s
	}
	// raw = num/den points.
	var num, den int64
	switch {
	case t.judged > 0 && t.fhCount > 0:
		// 0.6·100·safe/judged + 0.4·fhSum/fhCount, times 5·judged·fhCount.
		num = 300*int64(t.safe)*int64(t.fhCount) + 2*int64(t.fhSum)*int64(t.judged)
		den = 5 * int64(t.judged) * int64(t.fhCount)
	case t.judged > 0:
		num, den = 100*int64(t.safe), int64(t.judged)
	case t.fhCount > 0:
		// A FAIL whose only judged evidence is an early re-send whose own
		// outcome is still unknown: failure handling alone.
		num, den = int64(t.fhSum), int64(t.fhCount)
	default:
		num, den = 0, 1
	}
	rounded := int((2*num + den) / (2 * den))
	total := rounded
	if verdict == report.VerdictFail && rounded > failCap {
		total = failCap
		s.Capped = true
	}
	s.Total, s.Uncapped = &total, &rounded
	if t.judged > 0 {
		v := round2(100 * float64(t.safe) / float64(t.judged))
		s.DuplicateSafety = &v
	}
	if t.fhCount > 0 {
		v := round2(float64(t.fhSum) / float64(t.fhCount))
		s.FailureHandling = &v
	}
	return s
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }
