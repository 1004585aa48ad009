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

// ReadEvents parses a text/event-stream body and calls fn with each
// event's id (empty when none), type ("message" when none) and data (the
// data lines joined with "\n"), in order, until the body ends or fn
// returns false. Comments and unknown fields are ignored. It returns the
// read error (nil at the end of the body).
func ReadEvents(r *bufio.Reader, fn func(id, typ string, data []byte) bool) error {
	return ReadEventsRetry(r, fn, nil)
}

// ReadEventsRetry is ReadEvents that also calls retry, when not nil, with
// each valid retry field (the reconnection time in milliseconds, a
// number of ASCII digits).
func ReadEventsRetry(r *bufio.Reader, fn func(id, typ string, data []byte) bool, retry func(ms int64)) error {
	var id, typ string
	var data []byte
	have, seenData := false, false
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			rest, err2 := r.ReadBytes('\n')
			line = append(append([]byte(nil), line...), rest...)
			err = err2
		}
		if len(line) == 0 && err != nil {
			if have {
				fn(id, typOrMessage(typ), data)
			}
			return ignoreEOF(err)
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0:
			if have {
				if !fn(id, typOrMessage(typ), data) {
					return nil
				}
			}
			typ, data, have, seenData = "", nil, false, false
		case line[0] == ':':
			// a comment
		default:
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(field) {
			case "data":
				if seenData {
					data = append(data, '\n')
				}
				data = append(data, value...)
				have, seenData = true, true
			case "event":
				typ = string(value)
				have = true
			case "id":
				if bytes.IndexByte(value, 0) < 0 {
					id = string(value)
				}
			case "retry":
				if ms, err := strconv.ParseInt(string(value), 10, 64); err == nil && ms >= 0 && value[0] != '+' && retry != nil {
					retry(ms)
				}
			}
		}
		if err != nil {
			if have {
				fn(id, typOrMessage(typ), data)
			}
			return ignoreEOF(err)
		}
	}
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
