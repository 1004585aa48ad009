package campaign

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrIncomplete: the directories to merge do not hold every run of the
// plan (a lost shard, an interrupted one); its message names the missing
// slices (behaviour §9.4).
var ErrIncomplete = errors.New("incomplete")

// Merge combines shard directories into out: every dir must hold the same
// plan; each finished run is copied into out (a run finished in two
// directories is an error). It returns the plan, every record of out and,
// when runs of the plan are missing, which ones (missing names the
// slices). A merge with missing runs writes nothing and returns
// ErrIncomplete unless allowIncomplete.
func Merge(dirs []string, out string, allowIncomplete bool) (*Plan, []Record, string, error) {
	var plan *Plan
	for _, d := range dirs {
		p, err := LoadPlan(d)
		if err != nil {
			return nil, nil, "", fmt.Errorf("%s is not a campaign directory: %w", d, err)
		}
		if plan == nil {
			plan = p
		} else if diff := planDiff(plan, p); diff != "" {
			return nil, nil, "", fmt.Errorf("%w: %s and %s differ in their %s", ErrPlanMismatch, dirs[0], d, diff)
		}
	}
	from := map[int]string{}
	for _, d := range dirs {
		for _, u := range plan.Units() {
			if _, ok := LoadRecord(d, u); !ok {
				continue
			}
			if prev, dup := from[u.Index]; dup {
				return nil, nil, "", fmt.Errorf("run %s finished in both %s and %s (overlapping shards?)", u.Label(), prev, d)
			}
			from[u.Index] = d
		}
	}
	missing := missingSlices(dirs, plan, from)
	if missing != "" && !allowIncomplete {
		return nil, nil, missing, fmt.Errorf("%w: %s; nothing merged (--allow-incomplete merges what is there, exit 3)", ErrIncomplete, missing)
	}
	if err := PrepareOut(out, plan); err != nil {
		return nil, nil, "", err
	}
	var recs []Record
	for _, u := range plan.Units() {
		if d, ok := from[u.Index]; ok {
			if same, _ := sameDir(d, out); !same {
				dst := filepath.Join(out, u.Dir())
				if err := os.RemoveAll(dst); err != nil {
					return nil, nil, "", err
				}
				if err := os.CopyFS(dst, os.DirFS(filepath.Join(d, u.Dir()))); err != nil {
					return nil, nil, "", fmt.Errorf("copying run %s: %w", u.Label(), err)
				}
			}
		}
		if rec, ok := LoadRecord(out, u); ok {
			recs = append(recs, rec)
		}
	}
	return plan, recs, missing, nil
}

// missingSlices names the runs of plan that no directory finished, "" when
// none is missing: by slice when the directories are shards of one --shard
// I/N split ("slice 1/4 (no directory, 10 runs)", "slice 2/4 (3 of 10 runs
// unfinished)"), else by count and the first labels.
func missingSlices(dirs []string, plan *Plan, have map[int]string) string {
	units := plan.Units()
	var lost []Unit
	for _, u := range units {
		if _, ok := have[u.Index]; !ok {
			lost = append(lost, u)
		}
	}
	if len(lost) == 0 {
		return ""
	}
	n, present := shardSplit(dirs)
	if n > 1 {
		planned, gone := make([]int, n), make([]int, n)
		for _, u := range units {
			planned[u.Index%n]++
		}
		for _, u := range lost {
			gone[u.Index%n]++
		}
		var parts []string
		for i := 0; i < n; i++ {
			switch {
			case gone[i] == 0:
			case !present[i]:
				parts = append(parts, fmt.Sprintf("slice %d/%d (no directory, %s)", i, n, runsText(gone[i])))
			default:
				parts = append(parts, fmt.Sprintf("slice %d/%d (%d of %s unfinished)", i, n, gone[i], runsText(planned[i])))
			}
		}
		return fmt.Sprintf("%d of %s missing: %s", len(lost), runsText(len(units)), strings.Join(parts, ", "))
	}
	var labels []string
	for i, u := range lost {
		if i == 5 {
			labels = append(labels, "…")
			break
		}
		labels = append(labels, u.Label())
	}
	return fmt.Sprintf("%d of %s missing: %s", len(lost), runsText(len(units)), strings.Join(labels, ", "))
}

func runsText(n int) string {
	if n == 1 {
		return "1 run"
	}
	return strconv.Itoa(n) + " runs"
}

// shardSplit reads the shard of each directory's campaign.json: N when
// every directory is a shard "I/N" of the same N (present[I] set), else 0.
func shardSplit(dirs []string) (int, map[int]bool) {
	n, present := 0, map[int]bool{}
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, SummaryFile))
		if err != nil {
			return 0, nil
		}
		var s struct {
			Shard string `json:"shard"`
		}
		if json.Unmarshal(b, &s) != nil {
			return 0, nil
		}
		is, ns, ok := strings.Cut(s.Shard, "/")
		i, err1 := strconv.Atoi(is)
		nn, err2 := strconv.Atoi(ns)
		if !ok || err1 != nil || err2 != nil || nn < 2 || i < 0 || i >= nn || n != 0 && nn != n {
			return 0, nil
		}
		n, present[i] = nn, true
	}
	return n, present
}

func sameDir(a, b string) (bool, error) {
	fa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(fa, fb), nil
}
