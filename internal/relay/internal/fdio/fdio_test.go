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

// TestTryWriterStopsWhenFull: more than a pipe holds is written in part,
// without waiting and without an error; the reader gets exactly that part.
func TestTryWriterStopsWhenFull(t *testing.T) {
	r, w, err := os.Pipe() // non-blocking, as os.Pipe makes them
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	try := TryWriter(w)
	if try == nil {
		t.Fatal("TryWriter refused an os.Pipe end")
	}
	data := bytes.Repeat([]byte("0123456789abcdef"), 256<<10) // 4 MiB
	n, err := try(data)
	if err != nil || n <= 0 || n >= len(data) {
		t.Fatalf("try = %d, %v; want part of %d bytes and no error", n, err, len(data))
	}
	w.Close()
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, data[:n]) {
		t.Fatalf("read %d bytes (%v), want the %d written", len(got), err, n)
	}
}

// TestTryWriterClosedReader: a write whose reader is gone fails with EPIPE
// (no signal ends the test process).
func TestTryWriterClosedReader(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r.Close()
	if _, err := TryWriter(w)([]byte("x\n")); !errors.Is(err, syscall.EPIPE) {
		t.Errorf("write: %v, want EPIPE", err)
	}
}

// TestTryWriterRefusesBlocking: a blocking descriptor gets no try writer
// (a write to it could wait).
func TestTryWriterRefusesBlocking(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if TryWriter(f) != nil {
		t.Error("TryWriter took a blocking descriptor")
	}
}
