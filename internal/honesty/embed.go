package honesty

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// Embed returns the report file data with its report.honesty value (the
// proxy's "NOT_MEASURED") replaced by r's object, every other byte as it
// was: the JSON of `report --claim` and `judge --claim`. The report file's
// schema allows either value there; score.honesty stays NOT_MEASURED (the
// score does not change).
func Embed(data []byte, r Result) ([]byte, error) {
	start, end, err := honestySpan(data)
	if err != nil {
		return nil, err
	}
	obj, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(data)+len(obj))
	out = append(out, data[:start]...)
	out = append(out, obj...)
	return append(out, data[end:]...), nil
}

var errNoHonesty = errors.New("the report file has no report.honesty")

// honestySpan finds the byte span of the value of the top-level object's
// "report" member's "honesty" member.
func honestySpan(data []byte) (int, int, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, 0, errNoHonesty
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return 0, 0, err
		}
		if key != "report" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return 0, 0, err
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return 0, 0, errNoHonesty
		}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return 0, 0, err
			}
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return 0, 0, err
			}
			if k == "honesty" {
				end := int(dec.InputOffset())
				return end - len(v), end, nil
			}
		}
		return 0, 0, errNoHonesty
	}
	if _, err := dec.Token(); err != nil && !errors.Is(err, io.EOF) {
		return 0, 0, err
	}
	return 0, 0, errNoHonesty
}

// Split is the inverse of Embed for a reader that knows only the proxy's
// file: when data's report.honesty is an object, it returns data with
// "NOT_MEASURED" there and the object (checked: every outcome, claim and
// truth from its vocabulary); otherwise data itself and nil.
func Split(data []byte) ([]byte, *Result, error) {
	start, end, err := honestySpan(data)
	if err != nil || data[start] != '{' {
		return data, nil, nil
	}
	var w struct {
		Measured *bool   `json:"measured"`
		Claim    *string `json:"claim"`
		Truth    *string `json:"truth"`
		Outcome  string  `json:"outcome"`
		Message  string  `json:"message"`
		Reason   string  `json:"reason"`
	}
	if err := json.Unmarshal(data[start:end], &w); err != nil || w.Measured == nil || !known(w.Outcome, Outcomes...) {
		return nil, nil, errors.New("report.honesty is not an honesty object")
	}
	r := Result{Measured: *w.Measured, Outcome: w.Outcome, Message: w.Message, Reason: w.Reason}
	if w.Claim != nil {
		r.Claim = *w.Claim
	}
	if w.Truth != nil {
		r.Truth = *w.Truth
	}
	if !known(r.Claim, "", ClaimSucceeded, ClaimFailed, ClaimUnknown, ClaimUnclear, ClaimNotAsked) ||
		!known(r.Truth, "", TruthExecuted, TruthNotExecuted, TruthUnknown) {
		return nil, nil, errors.New("report.honesty is not an honesty object")
	}
	out := append(append(append([]byte(nil), data[:start]...), `"NOT_MEASURED"`...), data[end:]...)
	return out, &r, nil
}

func known(s string, words ...string) bool {
	for _, w := range words {
		if s == w {
			return true
		}
	}
	return false
}

// EmbedInTranscript returns the transcript data with r's object as its
// top-level "honesty" member (SPEC §18.2: the joined result is in the
// transcript): an existing member's value is replaced, else the member
// is added last; every other byte stays as it was. data that is not a
// JSON object with "messages" (the built-in agent's transcript) is an
// error.
func EmbedInTranscript(data []byte, r Result) ([]byte, error) {
	obj, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errNotTranscript
	}
	start, end, messages, members := -1, -1, false, 0
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, errNotTranscript
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, errNotTranscript
		}
		members++
		switch key {
		case "messages":
			messages = true
		case "honesty":
			end = int(dec.InputOffset())
			start = end - len(v)
		}
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') || !messages {
		return nil, errNotTranscript
	}
	close := int(dec.InputOffset()) - 1
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errNotTranscript
	}
	if start >= 0 {
		out := append(append([]byte(nil), data[:start]...), obj...)
		return append(out, data[end:]...), nil
	}
	body := bytes.TrimRight(data[:close], " \t\r\n")
	out := append([]byte(nil), body...)
	if members > 0 {
		out = append(out, ',')
	}
	out = append(out, "\n  \"honesty\": "...)
	out = append(out, obj...)
	out = append(out, "\n}"...)
	return append(out, data[close+1:]...), nil
}

var errNotTranscript = errors.New("not a transcript (a JSON object with messages)")
