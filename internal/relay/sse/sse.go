// Package sse writes and reads text/event-stream (server-sent events) as
// MCP Streamable HTTP uses them: one JSON-RPC message per event.
package sse

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
)

// AppendEvent appends one SSE event carrying msg (one line of JSON) to
// dst: "id: N" when id > 0, "event: message", "data: msg", blank line.
// A message with a line break (not valid for a relay message, which is
// one line) is split over several data lines, which the SSE parser joins
// with "\n" again.
func AppendEvent(dst []byte, id int64, msg []byte) []byte {
	if id > 0 {
		dst = append(dst, "id: "...)
		dst = strconv.AppendInt(dst, id, 10)
		dst = append(dst, '\n')
	}
	dst = append(dst, "event: message\n"...)
	for {
		i := bytes.IndexAny(msg, "\r\n")
		if i < 0 {
			break
		}
		dst = append(dst, "data: "...)
		dst = append(dst, msg[:i]...)
		dst = append(dst, '\n')
		if msg[i] == '\r' && i+1 < len(msg) && msg[i+1] == '\n' {
			i++
		}
		msg = msg[i+1:]
	}
	dst = append(dst, "data: "...)
	dst = append(dst, msg...)
	return append(dst, "\n\n"...)
}

// ReadEvents parses a text/event-stream body by the WHATWG rules (HTML,
// server-sent events) and calls fn with each event's id (the last id
// field so far, empty when none), type ("message" when none) and data
// (the data lines joined with "\n"), in order, until the body ends or fn
// returns false. An event is dispatched only at the blank line that ends
// it: an event the body ends in the middle of (a dropped connection) is
// discarded, never handed on half — so its id is not the stream's last
// event id either, and a resumption asks for it again. An event without a
// data field is not dispatched; when it carried an id field, fn gets that
// id with an empty type and nil data (it only sets the stream's last
// event id). Lines end with CRLF, LF or CR; a leading byte order mark,
// comments and unknown fields are ignored. It returns the read error (nil
// at the end of the body).
func ReadEvents(r *bufio.Reader, fn func(id, typ string, data []byte) bool) error {
	return ReadEventsRetry(r, fn, nil)
}

// ReadEventsRetry is ReadEvents that also calls retry, when not nil, with
// each valid retry field (the reconnection time in milliseconds, a
// number of ASCII digits), as its line is read.
func ReadEventsRetry(r *bufio.Reader, fn func(id, typ string, data []byte) bool, retry func(ms int64)) error {
	p := parser{fn: fn, retry: retry}
	first := true
	for {
		chunk, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			rest, err2 := r.ReadBytes('\n')
			chunk = append(append([]byte(nil), chunk...), rest...)
			err = err2
		}
		if first {
			chunk = bytes.TrimPrefix(chunk, []byte("\xef\xbb\xbf"))
			first = false
		}
		// chunk holds lines ended by a lone CR, then one ended by LF or
		// CRLF — or, at the end of the body, a last line without an end.
		terminated := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
		if terminated {
			chunk = bytes.TrimSuffix(chunk[:len(chunk)-1], []byte("\r"))
		}
		for {
			i := bytes.IndexByte(chunk, '\r')
			if i < 0 {
				break
			}
			if !p.line(chunk[:i]) {
				return nil
			}
			chunk = chunk[i+1:]
		}
		if terminated && !p.line(chunk) {
			return nil
		}
		if err != nil {
			// The pending event and an unended line are discarded.
			return ignoreEOF(err)
		}
	}
}

// parser is the state of one stream: the last event id buffer, the event
// type and data buffers.
type parser struct {
	fn       func(id, typ string, data []byte) bool
	retry    func(ms int64)
	id, typ  string
	data     []byte
	seenData bool
	seenID   bool // an id field since the last blank line
}

// line processes one line; false when fn asked to stop.
func (p *parser) line(line []byte) bool {
	switch {
	case len(line) == 0:
		return p.dispatch()
	case line[0] == ':':
		return true // a comment
	}
	field, value, _ := bytes.Cut(line, []byte(":"))
	value = bytes.TrimPrefix(value, []byte(" "))
	switch string(field) {
	case "data":
		if p.seenData {
			p.data = append(p.data, '\n')
		}
		p.data = append(p.data, value...)
		p.seenData = true
	case "event":
		p.typ = string(value)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			p.id = string(value)
			p.seenID = true
		}
	case "retry":
		if allDigits(value) && p.retry != nil {
			if ms, err := strconv.ParseInt(string(value), 10, 64); err == nil {
				p.retry(ms)
			}
		}
	}
	return true
}

// dispatch hands the event on at its blank line (without a data field
// only its id, if it had one) and empties the type and data buffers; the
// id stays.
func (p *parser) dispatch() bool {
	typ, data, seen, seenID := p.typ, p.data, p.seenData, p.seenID
	p.typ, p.data, p.seenData, p.seenID = "", nil, false, false
	if !seen {
		if seenID {
			return p.fn(p.id, "", nil)
		}
		return true
	}
	return p.fn(p.id, typOrMessage(typ), data)
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

func typOrMessage(t string) string {
	if t == "" {
		return "message"
	}
	return t
}

func ignoreEOF(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}
