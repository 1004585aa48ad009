package campaign

import (
	"fmt"
	"os"
	"path/filepath"
)

// Merge combines shard directories into out: every dir must hold the same
// plan; each finished run is copied into out (a run finished in two
// directories is an error). It returns the plan and every record of out.
func Merge(dirs []string, out string) (*Plan, []Record, error) {
	var plan *Plan
	for _, d := range dirs {
		p, err := LoadPlan(d)
		if err != nil {
			return nil, nil, fmt.Errorf("%s is not a campaign directory: %w", d, err)
		}
		if plan == nil {
			plan = p
		} else if diff := planDiff(plan, p); diff != "" {
			return nil, nil, fmt.Errorf("%w: %s and %s differ in their %s", ErrPlanMismatch, dirs[0], d, diff)
		}
	}
	if err := PrepareOut(out, plan); err != nil {
		return nil, nil, err
	}
	from := map[int]string{}
	for _, d := range dirs {
		for _, u := range plan.Units() {
			if _, ok := LoadRecord(d, u); !ok {
				continue
			}
			if prev, dup := from[u.Index]; dup {
				return nil, nil, fmt.Errorf("run %s finished in both %s and %s (overlapping shards?)", u.Label(), prev, d)
			}
			from[u.Index] = d
		}
	}
	var recs []Record
	for _, u := range plan.Units() {
		if d, ok := from[u.Index]; ok {
			if same, _ := sameDir(d, out); !same {
				dst := filepath.Join(out, u.Dir())
				if err := os.RemoveAll(dst); err != nil {
					return nil, nil, err
				}
				if err := os.CopyFS(dst, os.DirFS(filepath.Join(d, u.Dir()))); err != nil {
					return nil, nil, fmt.Errorf("copying run %s: %w", u.Label(), err)
				}
			}
		}
		if rec, ok := LoadRecord(out, u); ok {
			recs = append(recs, rec)
		}
	}
	return plan, recs, nil
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
