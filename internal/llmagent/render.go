package llmagent

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/cuonztech/agent-harness/internal/escape"
	"github.com/cuonztech/agent-harness/internal/peerfile"
)

// MaxTranscriptBytes bounds a transcript read for rendering (as a claim
// file's: honesty.MaxFileBytes).
const MaxTranscriptBytes = 32 << 20

// maxShown bounds one message's text in the rendered transcript; the
// transcript file keeps it whole.
const maxShown = 2000

// ReadTranscript reads and decodes a transcript file (at most
// MaxTranscriptBytes). A JSON object with neither messages nor modelCalls
// is not a transcript.
func ReadTranscript(path string) (*Transcript, error) {
	data, err := peerfile.Read(path, MaxTranscriptBytes)
	if errors.Is(err, peerfile.ErrTooLarge) {
		return nil, fmt.Errorf("larger than %d MiB", MaxTranscriptBytes>>20)
	}
	if err != nil {
		return nil, err
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil || probe == nil {
		return nil, errors.New("not a JSON object")
	}
	if _, ok := probe["messages"]; !ok {
		return nil, errors.New("not a transcript (no messages)")
	}
	var t Transcript
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("not a transcript: %w", err)
	}
	return &t, nil
}

// Attempt is one write attempt of the judge's report (an
// operations[].attemptLog entry), for marking the transcript.
type Attempt struct {
	Tool, Operation string
	N               int   // the attempt's number within its operation, from 1
	At              int64 // ms since the proxy started
	Fault           string
	Outcome         string
	// Omitted: the operation's attempt log was cut (attemptLogOmitted).
	Omitted bool
}

// matchAttempts pairs the report's write attempts with the transcript's
// tool results, tool by tool in the order they were sent: the i-th result
// of a call of T that reached MCP is the i-th attempt of T by time. A tool
// whose counts differ (another client on the proxy, a retry below the
// agent, a cut attempt log) gets no marks, and a note says why: a wrong
// mark would put the fault where the model did not receive it.
func matchAttempts(t *Transcript, attempts []Attempt) (map[int]Attempt, []string) {
	byTool := map[string][]Attempt{}
	omitted := map[string]bool{}
	for _, a := range attempts {
		byTool[a.Tool] = append(byTool[a.Tool], a)
		omitted[a.Tool] = omitted[a.Tool] || a.Omitted
	}
	results := map[string][]int{}
	for i, m := range t.Messages {
		if m.Role == "tool" && m.MCPTool != "" {
			results[m.MCPTool] = append(results[m.MCPTool], i)
		}
	}
	tools := make([]string, 0, len(byTool))
	for tool := range byTool {
		tools = append(tools, tool)
	}
	sort.Strings(tools)
	marks, notes := map[int]Attempt{}, []string{}
	for _, tool := range tools {
		as, rs := byTool[tool], results[tool]
		sort.SliceStable(as, func(i, j int) bool { return as[i].At < as[j].At })
		switch {
		case omitted[tool]:
			notes = append(notes, fmt.Sprintf("no marks for %s: the report's attempt log of it is cut", escape.Code(tool)))
			continue
		case len(as) != len(rs):
			notes = append(notes, fmt.Sprintf("no marks for %s: the report counts %d attempt(s), the transcript %d call(s) (another client of the proxy, or a retry below the agent)", escape.Code(tool), len(as), len(rs)))
			continue
		}
		for i, idx := range rs {
			marks[idx] = as[i]
		}
	}
	return marks, notes
}

// Markdown renders t as the "Transcript" section of a run's Markdown
// report: the conversation as the model saw it, each tool result that was
// a write attempt marked with the report's attempt (the injected fault in
// bold where the model received it), the claim, the model calls and the
// notes. Every text from the transcript is peer text, escaped as Markdown
// inline text (behaviour §7.5).
func Markdown(t *Transcript, attempts []Attempt) string {
	var b strings.Builder
	b.WriteString("## Transcript\n\n")
	var in, out int64
	var latency float64
	errs := 0
	for _, c := range t.ModelCalls {
		in, out, latency = in+c.InputTokens, out+c.OutputTokens, latency+c.LatencyMs
		if c.Error != "" {
			errs++
		}
	}
	fmt.Fprintf(&b, "Model %s (provider %s): %d model call(s), %d input + %d output tokens, %.1f ms model latency in all, %d provider fault(s)",
		escape.Code(t.Model), escape.Code(t.Provider), len(t.ModelCalls), in, out, latency, t.ProviderFaults)
	if errs > 0 {
		fmt.Fprintf(&b, ", %d failed model call(s)", errs)
	}
	b.WriteString(". A write attempt of the report is matched to the tool result the model received by tool and order.\n\n")
	marks, notes := matchAttempts(t, attempts)
	for i, m := range t.Messages {
		fmt.Fprintf(&b, "%d. ", i+1)
		switch m.Role {
		case "assistant":
			b.WriteString("**assistant**")
			if m.Content != "" {
				b.WriteString(": " + shown(m.Content))
			}
			for j, tc := range m.ToolCalls {
				sep := " — calls "
				if j > 0 || m.Content != "" {
					sep = "; calls "
				}
				b.WriteString(sep + escape.Code(tc.Name) + " " + escape.Code(cut(tc.Arguments)))
			}
		case "tool":
			b.WriteString("**tool result**")
			if m.MCPTool != "" {
				b.WriteString(" of " + escape.Code(m.MCPTool))
			} else {
				b.WriteString(" (made by the agent, not sent to MCP)")
			}
			if m.IsError {
				b.WriteString(" (is_error)")
			}
			if a, ok := marks[i]; ok {
				if a.Fault != "" {
					fmt.Fprintf(&b, " — **injected fault %s here** (%s attempt %d; at the upstream: %s)", escape.Code(a.Fault), escape.Code(a.Operation), a.N, escape.Markdown(a.Outcome))
				} else {
					fmt.Fprintf(&b, " — %s attempt %d, at the upstream: %s", escape.Code(a.Operation), a.N, escape.Markdown(a.Outcome))
				}
			}
			b.WriteString(": " + shown(m.Content))
		default:
			fmt.Fprintf(&b, "**%s**: %s", escape.Markdown(m.Role), shown(m.Content))
		}
		b.WriteString("\n")
	}
	if len(t.Messages) == 0 {
		b.WriteString("No messages.\n")
	}
	b.WriteString("\n")
	if t.Claim != nil {
		fmt.Fprintf(&b, "Claim: **%s** (the probe's answer: %s).\n\n", escape.Markdown(t.Claim.Claim), shown(t.Claim.Message))
	} else {
		b.WriteString("Claim: none (no probe was sent).\n\n")
	}
	for _, n := range notes {
		b.WriteString("- " + n + "\n")
	}
	for _, n := range t.Notes {
		b.WriteString("- " + shown(n) + "\n")
	}
	if len(notes)+len(t.Notes) > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

// shown is s as Markdown inline text, cut to maxShown bytes.
func shown(s string) string { return escape.Markdown(cut(s)) }

func cut(s string) string {
	if len(s) <= maxShown {
		return s
	}
	return s[:escape.Cut(s, maxShown)] + fmt.Sprintf("… (%d bytes in all)", len(s))
}
