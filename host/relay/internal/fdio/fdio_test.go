//go:build linux

package fdio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
)

// rawPipe returns both ends of an OS pipe (non-blocking, as os.Pipe makes
// them) for raw I/O.
func rawPipe(t *testing.T) (r, w *File) {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pr.Close(); pw.Close() })
	r, ok1 := New(pr)
	w, ok2 := New(pw)
	if !ok1 || !ok2 {
		t.Fatal("os.Pipe ends are not usable for raw I/O")
	}
	return r, w
}

// TestRoundTrip: more than a pipe holds is written and read back intact,
// so both sides wait in the netpoller (EAGAIN) on the way; then EOF.
func TestRoundTrip(t *testing.T) {
	r, w := rawPipe(t)
	data := bytes.Repeat([]byte("0123456789abcdef"), 256<<10) // 4 MiB
	werr := make(chan error, 1)
	go func() {
		n, err := w.Write(data)
		if err == nil && n != len(data) {
			err = io.ErrShortWrite
		}
		w.Close()
		werr <- err
	}()
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if err := <-werr; err != nil {
		t.Fatalf("write: %v", err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("read %d bytes, want the %d written", len(got), len(data))
	}
	if n, err := r.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("after EOF: %d, %v", n, err)
	}
	if n, err := r.Read(nil); n != 0 || err != nil {
		t.Errorf("empty read: %d, %v", n, err)
	}
}

// TestCloseEndsAWaitingRead: closing the file ends a read that waits.
func TestCloseEndsAWaitingRead(t *testing.T) {
	r, _ := rawPipe(t)
	done := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 8))
		done <- err
	}()
	// The read may not have started waiting yet: either way it must end
	// with os.ErrClosed (a read after close fails the same way).
	r.Close()
	if err := <-done; !errors.Is(err, os.ErrClosed) {
		t.Errorf("read after close: %v, want os.ErrClosed", err)
	}
}

// TestWriteToClosedPipe: a write whose reader is gone fails with EPIPE
// (no signal ends the test process).
func TestWriteToClosedPipe(t *testing.T) {
	r, w := rawPipe(t)
	r.Close()
	if _, err := w.Write([]byte("x\n")); !errors.Is(err, syscall.EPIPE) {
		t.Errorf("write: %v, want EPIPE", err)
	}
}

// TestNewRefusesBlocking: a blocking descriptor is not taken (a raw read
// of it could stall the scheduler).
func TestNewRefusesBlocking(t *testing.T) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, ok := New(f); ok {
		t.Error("New took a blocking descriptor")
	}
}
