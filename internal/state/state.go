// Package state runs state probes (behaviour §14): a shell command that
// asks the backend what really happened and prints one JSON object of
// counters, e.g. {"bookings": 3}. The proxy takes a snapshot before the
// upstream starts and after the session ends; the judge compares the
// counters a write tool maps to with the executions it saw on the wire.
package state

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// DefaultTimeout bounds one probe run unless --state-timeout says otherwise.
const DefaultTimeout = 10 * time.Second

// MaxOutput is the most bytes of a probe's stdout that are read; more is a
// probe failure. MaxStderr is the most of its stderr kept for the reason.
const (
	MaxOutput = 1 << 20
	MaxStderr = 512
)

// Probe is one configured state command.
type Probe struct {
	// Command runs as `sh -c Command`.
	Command string
	// Dir and Env are the upstream's working directory ("" = the proxy's)
	// and its extra environment (KEY=VALUE, after the proxy's own).
	Dir string
	Env []string
	// Timeout bounds one run (0: DefaultTimeout).
	Timeout time.Duration
}

// Snapshot is one probe run: the counters it printed, or why it failed.
type Snapshot struct {
	// At says when it was taken: "before", "after" or "write" (with
	// --state-every-write, at a report write).
	At string `json:"at"`
	// Time is when the probe started (RFC 3339, UTC).
	Time string `json:"time,omitempty"`
	// Counters are the object's numeric members, as written. Non-numeric
	// members are left out (they fail only a tool that maps them).
	Counters map[string]json.Number `json:"counters,omitempty"`
	// Error is why the probe failed ("" = it did not); then Counters is
	// empty.
	Error string `json:"error,omitempty"`
	// Invalid names members that were present but not numbers, with why.
	Invalid map[string]string `json:"invalid,omitempty"`
}

// Run runs the probe once, bounded by its timeout and by ctx. It never
// returns an error: a failure is the snapshot's Error.
func (p Probe) Run(ctx context.Context, at string) Snapshot {
	s := Snapshot{At: at, Time: time.Now().UTC().Format(time.RFC3339Nano)}
	out, err := p.output(ctx)
	if err != nil {
		s.Error = err.Error()
		return s
	}
	s.Counters, s.Invalid, err = Parse(out)
	if err != nil {
		s.Error = err.Error()
	}
	return s
}

// output runs the command and returns its stdout, or why it failed.
func (p Probe) output(ctx context.Context) ([]byte, error) {
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", p.Command)
	cmd.Dir = p.Dir
	cmd.Env = append(os.Environ(), p.Env...)
	cmd.Stdin = nil
	stdout := &capped{max: MaxOutput}
	stderr := &capped{max: MaxStderr}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	ownGroup(cmd)
	// A grandchild that keeps the pipes open must not hold the probe past
	// its bound: the group is killed, and Wait gives up on the pipes.
	cmd.WaitDelay = 100 * time.Millisecond
	err := cmd.Run()
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, fmt.Errorf("state probe: timed out after %v", timeout)
	case ctx.Err() != nil:
		return nil, fmt.Errorf("state probe: %w", ctx.Err())
	case stdout.over:
		return nil, fmt.Errorf("state probe: more than %d bytes of output", MaxOutput)
	case err != nil:
		var ee *exec.ExitError
		msg := err.Error()
		if errors.As(err, &ee) {
			msg = ee.ProcessState.String()
		}
		if tail := oneLine(stderr.buf.Bytes()); tail != "" {
			msg += ": " + tail
		}
		return nil, fmt.Errorf("state probe: %s", msg)
	}
	return stdout.buf.Bytes(), nil
}

// oneLine is b as one printable line: control characters as spaces,
// invalid UTF-8 replaced, at most MaxStderr bytes.
func oneLine(b []byte) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	for len(s) > MaxStderr {
		_, n := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-n]
	}
	return s
}

// capped keeps the first max bytes written and notes whether there were
// more; it never fails a write, so the child is not killed by a broken
// pipe before it exits.
type capped struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room < len(p) {
		c.over = true
		if room > 0 {
			c.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return c.buf.Write(p)
}

// Parse reads a probe's output: exactly one JSON object (white space
// around it allowed). Its members that are JSON numbers are the counters;
// the others are listed in invalid with why (a tool that maps one of them
// fails). Output that is not one object is an error. A name given twice
// is an error: which one counts would be the parser's guess.
func Parse(out []byte) (counters map[string]json.Number, invalid map[string]string, err error) {
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, errors.New("state probe: no output (want one JSON object of counters)")
		}
		return nil, nil, fmt.Errorf("state probe: output is not a JSON object: %s", jsonErr(err))
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, errors.New("state probe: output is not a JSON object")
	}
	counters = map[string]json.Number{}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, fmt.Errorf("state probe: output is not a JSON object: %s", jsonErr(err))
		}
		name := tok.(string) // an object's key is always a string
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, fmt.Errorf("state probe: output is not a JSON object: %s", jsonErr(err))
		}
		if seen[name] {
			return nil, nil, fmt.Errorf("state probe: counter %q is given twice", name)
		}
		seen[name] = true
		v = bytes.TrimSpace(v)
		if len(v) > 0 && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
			counters[name] = json.Number(v)
			continue
		}
		if invalid == nil {
			invalid = map[string]string{}
		}
		invalid[name] = "not a number"
	}
	if _, err := dec.Token(); err != nil { // the closing }
		return nil, nil, fmt.Errorf("state probe: output is not a JSON object: %s", jsonErr(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, nil, errors.New("state probe: output is more than one JSON value")
	}
	return counters, invalid, nil
}

func jsonErr(err error) string {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "unexpected end of output"
	}
	return err.Error()
}

// Count is the counter name's value as a whole number, or why it is
// none: missing, not a number, not whole, or beyond ±2^53 (a count no
// backend reaches; refusing it keeps the deltas exact).
func (s Snapshot) Count(name string) (int64, error) {
	if s.Error != "" {
		return 0, errors.New(s.Error)
	}
	if why, ok := s.Invalid[name]; ok {
		return 0, fmt.Errorf("state probe: counter %q is %s", name, why)
	}
	n, ok := s.Counters[name]
	if !ok {
		return 0, fmt.Errorf("state probe: no counter %q in %s", name, s.names())
	}
	if i := strings.IndexAny(string(n), "eE"); i >= 0 {
		// big.Rat would expand 1e999999999 in memory; no count needs an
		// exponent beyond 2^53's digits.
		if exp, err := strconv.Atoi(strings.TrimPrefix(string(n)[i+1:], "+")); err != nil || exp > 20 || exp < -20 {
			return 0, fmt.Errorf("state probe: counter %q is out of range", name)
		}
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		return 0, fmt.Errorf("state probe: counter %q is not a number", name)
	}
	if !r.IsInt() {
		return 0, fmt.Errorf("state probe: counter %q is %s, not a whole number", name, n)
	}
	if !r.Num().IsInt64() || math.Abs(float64(r.Num().Int64())) > 1<<53 {
		return 0, fmt.Errorf("state probe: counter %q is out of range", name)
	}
	return r.Num().Int64(), nil
}

func (s Snapshot) names() string {
	if len(s.Counters) == 0 && len(s.Invalid) == 0 {
		return "an empty object"
	}
	var names []string
	for n := range s.Counters {
		names = append(names, fmt.Sprintf("%q", n))
	}
	for n := range s.Invalid {
		names = append(names, fmt.Sprintf("%q", n))
	}
	sort.Strings(names)
	return "the output (" + strings.Join(names, ", ") + ")"
}

// Effect is the change of counter name from before to after, or why it
// cannot be known.
func Effect(before, after Snapshot, name string) (int64, error) {
	b, err := before.Count(name)
	if err != nil {
		return 0, fmt.Errorf("before the session: %w", err)
	}
	a, err := after.Count(name)
	if err != nil {
		return 0, fmt.Errorf("after the session: %w", err)
	}
	return a - b, nil
}

// ParseMap reads one --state-map value, TOOL=COUNTER.
func ParseMap(v string) (tool, counter string, err error) {
	tool, counter, ok := strings.Cut(v, "=")
	if !ok || tool == "" || counter == "" {
		return "", "", fmt.Errorf("%q is not TOOL=COUNTER", v)
	}
	return tool, counter, nil
}
