package plugin

import (
	"encoding/json"
	"fmt"

	"github.com/cuonztech/agent-harness/internal/classify"
)

// Classifier returns the plugin's classify hook as a classify.Classifier,
// or nil when the manifest does not declare it.
//
// A failed or disabled plugin does not fall through to the next stage: the
// tool becomes unclassified with the reason "plugin NAME failed: …", so a
// broken classifier never silently changes which calls are judged.
func (p *Plugin) Classifier() classify.Classifier {
	if !p.manifest.Has(HookClassify) {
		return nil
	}
	return classifier{p}
}

type classifier struct{ p *Plugin }

// classifyOutput is ah_classify's answer.
type classifyOutput struct {
	Class  classify.Class `json:"class"`
	Reason string         `json:"reason"`
}

// maxReason bounds a reason shown in the startup table.
const maxReason = 200

// Classify asks the plugin about t.
func (c classifier) Classify(t classify.Tool) (classify.Result, bool) {
	input, err := json.Marshal(t)
	if err != nil {
		return c.failed(c.p.fail("classify "+t.Name, fmt.Errorf("encoding input: %w", err)))
	}
	var res classify.Result
	var ok bool
	err = c.p.invoke(HookClassify, "classify "+t.Name, input, func(out []byte) error {
		if len(out) == 0 {
			return nil
		}
		var o classifyOutput
		if err := decodeStrict(out, &o); err != nil {
			return err
		}
		switch o.Class {
		case classify.Read, classify.Write, classify.Unclassified:
		default:
			return fmt.Errorf("class %q is not read, write or unclassified", o.Class)
		}
		if o.Reason == "" {
			o.Reason = "plugin " + c.p.Name()
		} else {
			o.Reason = truncate(o.Reason, maxReason) + " (plugin " + c.p.Name() + ")"
		}
		res, ok = classify.Result{Class: o.Class, Reason: o.Reason}, true
		return nil
	})
	if err != nil {
		return c.failed(err)
	}
	return res, ok
}

func (c classifier) failed(err error) (classify.Result, bool) {
	return classify.Result{Class: classify.Unclassified, Reason: truncate(err.Error(), maxReason)}, true
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 { // do not cut a UTF-8 sequence
		n--
	}
	return s[:n] + "…"
}
