package sse

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

func TestReadEvents(t *testing.T) {
	in := ": comment\nid: 4\nevent: message\ndata: {\"a\":1}\n\ndata: x\ndata: y\n\nevent: ping\ndata:\n\ndata: last"
	type ev struct{ id, typ, data string }
	var got []ev
	err := ReadEvents(bufio.NewReader(strings.NewReader(in)), func(id, typ string, data []byte) bool {
		got = append(got, ev{id, typ, string(data)})
		return true
	})
	want := []ev{{"4", "message", `{"a":1}`}, {"4", "message", "x\ny"}, {"4", "ping", ""}, {"4", "message", "last"}}
	if err != nil || len(got) != len(want) {
		t.Fatalf("got %v, %v", got, err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d: got %+v want %+v", i, got[i], want[i])
		}
	}
}

func TestAppendEventRoundTrip(t *testing.T) {
	for _, msg := range []string{`{"jsonrpc":"2.0","id":1,"result":{}}`, "a\nb", "a\r\nb", ""} {
		b := AppendEvent(nil, 7, []byte(msg))
		var got []string
		_ = ReadEvents(bufio.NewReader(bytes.NewReader(b)), func(id, typ string, data []byte) bool {
			if id != "7" || typ != "message" {
				t.Errorf("id %q type %q", id, typ)
			}
			got = append(got, string(data))
			return true
		})
		want := strings.ReplaceAll(msg, "\r\n", "\n")
		if len(got) != 1 || got[0] != want {
			t.Errorf("%q: got %q", msg, got)
		}
	}
}

// FuzzReadEvents: the parser never panics, and what AppendEvent writes
// reads back as one event with the same data (line breaks as \n).
func FuzzReadEvents(f *testing.F) {
	f.Add([]byte("data: {}\n\n"), []byte(`{"x":1}`))
	f.Add([]byte("id: 1\r\nevent: message\r\ndata: a\r\ndata: b\r\n\r\n"), []byte("a\nb"))
	f.Add([]byte(":\n\n\n"), []byte(""))
	f.Fuzz(func(t *testing.T, stream, msg []byte) {
		_ = ReadEvents(bufio.NewReaderSize(bytes.NewReader(stream), 16), func(string, string, []byte) bool { return true })
		n := 0
		var got []byte
		_ = ReadEvents(bufio.NewReader(bytes.NewReader(AppendEvent(nil, 1, msg))), func(_, _ string, data []byte) bool {
			n++
			got = data
			return true
		})
		want := bytes.ReplaceAll(msg, []byte("\r\n"), []byte("\n"))
		want = bytes.ReplaceAll(want, []byte("\r"), []byte("\n"))
		if n != 1 || !bytes.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("msg %q: %d events, data %q", msg, n, got)
		}
	})
}
