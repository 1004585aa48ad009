package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MaxLine is the longest line a reader accepts (64 MiB): longer is no
// line this harness wrote.
const MaxLine = 64 << 20

// Trace is a read trace.
type Trace struct {
	// Header is the zero Header for an empty file.
	Header Header
	// Lines are the event lines in order.
	Lines []Line
	// Warning is set when a torn last line (a proxy killed while writing
	// it) was left out.
	Warning string
	// Ended is true when the trace has its end line: without one the
	// proxy was stopped before the session ended (an interrupted run).
	Ended bool
}

// lineTypes are the event line types a trace may hold.
var lineTypes = map[string]bool{
	"call": true, "forwarded": true, "answer": true, "end": true, "delivered": true,
	"tools": true, TypePluginFailure: true, "session": true, TypeStartupFailed: true, "dropped-call": true,
	TypeState: true,
}

// v1Disabled starts the detail of a version 1 plugin-failure line that
// recorded a plugin's disabling.
const v1Disabled = "disabled after "

// Read reads a whole trace, of version 2 or 1 (Header.Version says which;
// a version 1 disabling is returned as a version 2 one, with Disabled). An
// empty input is an empty trace. It fails (with the line number) on a
// first line that is not the header of a known version,
// a line that is not a valid event line, or a line over MaxLine; a last
// line without its line break that does not parse is left out with a
// Warning (the proxy was killed while writing it).
//
// # Errors
//
// Every line is checked against trace.schema.json (the definition of its
// type; a version 1 header is not) and against the writer's invariants:
// each call number once; forwarded, answer and delivered only after their
// call, at most once each, forwarded before the answer and delivered after
// it; nothing but plugin failures after the end line; a session opened
// before a line names it (a trace without any session line, of an older
// writer, names sessions without opening them). Lines are also checked
// against the lines they derive from (crossLines): a listing's
// classification against its definitions and the header's settings, a
// call's tool against its params and its class, acceptsKey and
// idempotent against its tool's listing, an answer's outcome against its
// call's forwarding and the header's upstream, an injected 429's
// retry_after against the header, each call's lines in time order. The
// error names the line and the rule.
func Read(r io.Reader) (*Trace, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	tr, inv := &Trace{}, newInvariants()
	var cross *crossLines
	done := func() (*Trace, error) {
		if cross != nil {
			if err := cross.end(); err != nil {
				return nil, err
			}
		}
		return tr, nil
	}
	for n := 1; ; n++ {
		line, complete, err := readLine(br)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if line == nil {
			return done()
		}
		if n == 1 {
			if err := readHeader(line, &tr.Header); err != nil {
				if !complete && !json.Valid(line) && bytes.HasPrefix(line, []byte(`{"type":"header"`)) {
					tr.Warning = "line 1 (the header) is incomplete: the proxy was stopped while writing it; the trace is empty"
					return tr, nil
				}
				return nil, fmt.Errorf("line 1: %w", err)
			}
			// Version 1 headers predate the schema's.
			if tr.Header.Version == Version {
				if err := checkSchema(line, TypeHeader); err != nil {
					return nil, fmt.Errorf("line 1: %w", err)
				}
			}
			inv.probed = tr.Header.Settings.StateCommand != ""
			cross = newCrossLines(&tr.Header)
			if len(tr.Header.Tools) > 0 { // a proxy's header lists none
				if err := cross.listing(1, tr.Header.Tools, nil, false); err != nil {
					return nil, err
				}
			}
			continue
		}
		var l Line
		if err := decodeLine(line, &l); err != nil {
			if !complete {
				tr.Warning = fmt.Sprintf("line %d is incomplete (the proxy was stopped while writing it) and was left out", n)
				return done()
			}
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if err := checkSchema(line, l.Type); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if err := inv.check(n, &l); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if err := cross.check(n, &l); err != nil {
			return nil, err
		}
		if l.Type == "end" {
			tr.Ended = true
		}
		if tr.Header.Version == 1 && l.Type == TypePluginFailure && strings.HasPrefix(l.Detail, v1Disabled) {
			l.Disabled = true
		}
		tr.Lines = append(tr.Lines, l)
	}
}

// readLine returns the next line without its line break; complete is false
// for a last line without one. nil at the end of the input.
func readLine(br *bufio.Reader) (line []byte, complete bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > MaxLine+1 {
			return nil, false, fmt.Errorf("longer than %d bytes", MaxLine)
		}
		switch {
		case err == nil:
			if buf == nil {
				return bytes.Clone(chunk[:len(chunk)-1]), true, nil
			}
			buf = append(buf, chunk...)
			return buf[:len(buf)-1], true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			buf = append(buf, chunk...)
		case errors.Is(err, io.EOF):
			buf = append(buf, chunk...)
			if len(buf) == 0 {
				return nil, false, nil
			}
			return buf, false, nil
		default:
			return nil, false, err
		}
	}
}

func readHeader(line []byte, h *Header) error {
	var probe struct {
		Type    string          `json:"type"`
		Format  string          `json:"format"`
		Version json.RawMessage `json:"version"`
	}
	if err := json.Unmarshal(line, &probe); err != nil || probe.Type != TypeHeader || probe.Format != Format {
		return errors.New("not an agent-harness trace (the first line is not its header)")
	}
	if v := string(probe.Version); v != fmt.Sprint(Version) && v != "1" {
		return fmt.Errorf("trace format version %s is not supported (this agent-harness reads versions 1 and %d)", probe.Version, Version)
	}
	if err := json.Unmarshal(line, h); err != nil {
		return fmt.Errorf("bad header: %v", err)
	}
	return nil
}

func decodeLine(line []byte, l *Line) error {
	if err := json.Unmarshal(line, l); err != nil {
		return fmt.Errorf("not a trace line: %v", err)
	}
	if !lineTypes[l.Type] {
		return fmt.Errorf("unknown line type %q", l.Type)
	}
	return nil
}
