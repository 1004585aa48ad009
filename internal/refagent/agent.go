package refagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuonztech/agent-harness/internal/escape"
)

// Behaviour says how the agent handles a failed write.
type Behaviour struct {
	// NaiveP is the probability that the agent re-sends at once after a
	// failure: 0 = careful, 1 = naive, in between = flaky:P.
	NaiveP float64
}

// ParseBehaviour reads careful, naive or flaky:P (0 ≤ P ≤ 1).
func ParseBehaviour(s string) (Behaviour, error) {
	switch s {
	case "careful":
		return Behaviour{NaiveP: 0}, nil
	case "naive":
		return Behaviour{NaiveP: 1}, nil
	}
	if p, ok := strings.CutPrefix(s, "flaky:"); ok {
		f, err := strconv.ParseFloat(p, 64)
		if err == nil && f >= 0 && f <= 1 && !strings.ContainsAny(p, "xXpP_") {
			return Behaviour{NaiveP: f}, nil
		}
		return Behaviour{}, fmt.Errorf("%q: P must be a number from 0 to 1", s)
	}
	return Behaviour{}, fmt.Errorf("%q is not a behaviour (careful, naive or flaky:P)", s)
}

// Options configures one run of the agent.
type Options struct {
	Entry     Entry
	Behaviour Behaviour
	Seed      uint64
	// Stdout receives what the agent did, one line per step.
	Stdout io.Writer
	// Stderr receives the stdio server's stderr (the proxy's log).
	Stderr io.Writer
	// Sleep waits out a retry_after; nil = Sleep (a timer honouring ctx).
	Sleep func(context.Context, time.Duration) error
}

// The booking the agent is asked to make.
const (
	guest = "Ada Lovelace"
	date  = "2026-11-03"
	room  = "double"
)

// maxAttempts bounds a naive agent's re-sends.
const maxAttempts = 3

// Run connects to the server of o.Entry and books one booking. It returns
// an error only when the MCP session could not be used at all; a tool
// failure is behaviour, reported on Stdout.
func Run(ctx context.Context, o Options) error {
	if o.Sleep == nil {
		o.Sleep = Sleep
	}
	var transport mcp.Transport
	if o.Entry.URL != "" {
		transport = &mcp.StreamableClientTransport{Endpoint: o.Entry.URL}
	} else {
		cmd := exec.Command(o.Entry.Command, o.Entry.Args...)
		cmd.Env = os.Environ()
		for k, v := range o.Entry.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		cmd.Stderr = o.Stderr
		transport = &mcp.CommandTransport{Command: cmd}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "agent-harness-reference-agent", Version: "1"}, nil)
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return fmt.Errorf("connecting to server %q: %w", o.Entry.Name, err)
	}
	a := &agent{o: o, cs: cs, rng: rand.New(rand.NewPCG(o.Seed, 0x5eed_a6e7))}
	err = a.book(ctx)
	if cerr := cs.Close(); err == nil && cerr != nil && !errors.Is(cerr, mcp.ErrConnectionClosed) {
		// The server's exit status is its business; the session worked.
		fmt.Fprintf(o.Stdout, "session closed: %s\n", escape.LineBreaks(cerr.Error()))
	}
	return err
}

// Sleep waits d or until ctx is done (then ctx's error): the default
// Options.Sleep of this agent and of the built-in LLM agent
// (internal/llmagent).
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

type agent struct {
	o    Options
	cs   Caller
	rng  *rand.Rand
	keys int
}

func (a *agent) say(format string, args ...any) {
	fmt.Fprintf(a.o.Stdout, format+"\n", args...)
}

func (a *agent) newKey() string {
	a.keys++
	return fmt.Sprintf("ref-%d-%d", a.o.Seed, a.keys)
}

// book makes the booking: write, and after each failure either re-send at
// once with a new key (naive) or check with find_bookings first (careful).
func (a *agent) book(ctx context.Context) error {
	key := a.newKey()
	for attempt := 1; ; attempt++ {
		res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_booking", Arguments: map[string]any{
			"guest": guest, "date": date, "room": room, "idempotency_key": key,
		}})
		if broken(err) {
			return fmt.Errorf("calling create_booking: %w", err)
		}
		ans := classify(res, err)
		if ans.kind == answerOK {
			a.say("create_booking (key %s): booked %s", key, bookingID(res))
			a.say("result: booked")
			return nil
		}
		a.say("create_booking (key %s): failed: %s", key, ans.text)
		if attempt >= maxAttempts {
			a.say("result: gave up after %d attempts; told the user the booking failed", attempt)
			return nil
		}
		if a.rng.Float64() < a.o.Behaviour.NaiveP {
			key = a.newKey()
			a.say("naive: re-sending at once with a new key")
			continue
		}
		// Careful: wait out a 429, then check before any re-send.
		if ans.retryAfter > 0 {
			a.say("careful: waiting %s as retry_after asks", ans.retryAfter)
			if err := a.o.Sleep(ctx, ans.retryAfter+100*time.Millisecond); err != nil {
				return err
			}
		}
		found, err := a.find(ctx)
		switch {
		case err != nil:
			return err
		case found == lookupFound:
			a.say("result: the booking exists; not re-sending")
			return nil
		case found == lookupUnknown:
			a.say("result: cannot check; not re-sending, told the user the outcome is unknown")
			return nil
		}
		a.say("careful: no booking found; re-sending with the same key")
	}
}

// find searches the booking by guest and date, without an id.
func (a *agent) find(ctx context.Context) (lookup, error) {
	res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: "find_bookings", Arguments: map[string]any{
		"guest": guest, "date": date,
	}})
	if broken(err) {
		return lookupUnknown, fmt.Errorf("calling find_bookings: %w", err)
	}
	if err != nil || res.IsError {
		a.say("find_bookings: failed")
		return lookupUnknown, nil
	}
	found, n := bookingsIn(res)
	if found == lookupUnknown {
		a.say("find_bookings: unreadable answer")
		return lookupUnknown, nil
	}
	a.say("find_bookings: %d booking(s) found", n)
	return found, nil
}

type answerKind int

const (
	answerOK answerKind = iota
	answerFailed
)

type answer struct {
	kind       answerKind
	text       string
	retryAfter time.Duration
}

func classify(res *mcp.CallToolResult, err error) answer {
	if err != nil {
		return answer{kind: answerFailed, text: escape.LineBreaks(err.Error())}
	}
	if !res.IsError {
		return answer{kind: answerOK}
	}
	a := answer{kind: answerFailed, text: text(res)}
	if len(a.text) > 120 {
		a.text = a.text[:120] + "…"
	}
	a.text = escape.LineBreaks(a.text)
	var sc struct {
		RetryAfter *float64 `json:"retry_after"`
	}
	if raw, ok := res.StructuredContent.(map[string]any); ok {
		if f, ok := raw["retry_after"].(float64); ok {
			sc.RetryAfter = &f
		}
	}
	switch {
	case sc.RetryAfter != nil && *sc.RetryAfter >= 0 && *sc.RetryAfter <= 86400:
		a.retryAfter = time.Duration(*sc.RetryAfter * float64(time.Second))
	default:
		if m := retryAfterText.FindStringSubmatch(a.text); m != nil {
			if s, err := strconv.Atoi(m[1]); err == nil && s <= 86400 {
				a.retryAfter = time.Duration(s) * time.Second
			}
		}
	}
	return a
}

func bookingID(res *mcp.CallToolResult) string {
	var b struct {
		ID string `json:"booking_id"`
	}
	if json.Unmarshal([]byte(text(res)), &b) == nil && b.ID != "" {
		return b.ID
	}
	return "(no id in the answer)"
}
