package relay

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// lockedBuffer collects what the writer goroutine writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// TestUpWriterPartialWrites: whatever the pipe takes at once (try), the
// rest follows through the queue, in order, and the bytes are exactly the
// messages with their ids replaced.
func TestUpWriterPartialWrites(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":"agent","params":"` + strings.Repeat("y", smallMessage) + `"}`
	for _, takes := range []int{0, 1, 7, 30, smallMessage / 2, smallMessage + 13, 1 << 30} {
		var mu sync.Mutex
		var got bytes.Buffer
		left := takes
		try := func(p []byte) (int, error) {
			mu.Lock()
			defer mu.Unlock()
			n := min(len(p), left)
			left -= n
			got.Write(p[:n])
			return n, nil
		}
		rest := &lockedBuffer{}
		u := newUpWriter(rest, try, nil)
		msgs := []message{
			{line: []byte(`{"id":"a","m":1}` + "\n"), at: 6, cut: 3, id: []byte("17")},
			whole([]byte(`{"n":2}`)),
			{line: []byte(big), at: strings.Index(big, `"agent"`), cut: len(`"agent"`), id: []byte("18")},
			whole([]byte(`{"n":3}` + "\n")),
		}
		want := `{"id":17,"m":1}` + "\n" + `{"n":2}` + "\n" + strings.Replace(big, `"agent"`, "18", 1) + "\n" + `{"n":3}` + "\n"
		for _, m := range msgs {
			if _, err := u.send(m); err != nil {
				t.Fatal(err)
			}
		}
		u.flush(time.Minute)
		u.close()
		mu.Lock()
		all := got.String() + rest.b.String()
		mu.Unlock()
		if all != want {
			t.Errorf("takes %d: wrote %d bytes, want %d; equal prefix %d", takes, len(all), len(want), commonPrefix(all, want))
		}
	}
}

func commonPrefix(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// TestUpWriterWithdraw: a queued message that has not begun can be
// withdrawn and is never written; one being written cannot.
func TestUpWriterWithdraw(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		block := make(chan struct{})
		var wrote []string
		w := writerFunc(func(p []byte) (int, error) { <-block; wrote = append(wrote, string(p)); return len(p), nil })
		u := newUpWriter(w, nil, nil)
		first, _ := u.send(whole([]byte("first\n")))
		second, _ := u.send(whole([]byte("second\n")))
		synctest.Wait() // the goroutine writes the first message
		if u.withdraw(first) {
			t.Error("withdrew a message being written")
		}
		if !u.withdraw(second) || second.begun.Load() {
			t.Error("could not withdraw a queued message")
		}
		close(block)
		u.flush(time.Minute)
		u.close()
		if len(wrote) != 1 || wrote[0] != "first\n" {
			t.Errorf("wrote %q", wrote)
		}
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
