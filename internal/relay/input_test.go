//go:build unix

package relay

import (
	"io"
	"os"
	"syscall"
	"testing"
)

// blockingPipe returns a pipe in blocking mode, as an agent's stdio is.
func blockingPipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		t.Fatal(err)
	}
	syscall.CloseOnExec(fds[0])
	syscall.CloseOnExec(fds[1])
	r, w = os.NewFile(uintptr(fds[0]), "r"), os.NewFile(uintptr(fds[1]), "w")
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

func TestPollableStdio(t *testing.T) {
	tests := []struct {
		name string
		// pick returns the file to switch and the function to test.
		pick func(r, w *os.File) (*os.File, func() (any, func()))
	}{
		{"input", func(r, _ *os.File) (*os.File, func() (any, func())) {
			return r, func() (any, func()) { return pollableInput(r) }
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, w := blockingPipe(t)
			f, switchIt := tt.pick(r, w)
			got, release := switchIt()
			if got == any(f) {
				t.Fatal("a pipe was not switched")
			}
			if !isNonblock(int(f.Fd())) {
				t.Error("O_NONBLOCK not set during the session")
			}
			// The switched side still carries data.
			if f == r {
				w.Write([]byte("x"))
				if n, err := got.(io.Reader).Read(make([]byte, 4)); n != 1 || err != nil {
					t.Errorf("read %d, %v", n, err)
				}
			} else if _, err := got.(io.Writer).Write([]byte("y")); err != nil {
				t.Errorf("write: %v", err)
			}
			release()
			if isNonblock(int(f.Fd())) {
				t.Error("O_NONBLOCK still set after release")
			}
		})
	}
}

func TestPollableLeavesOthersAlone(t *testing.T) {
	file, err := os.CreateTemp(t.TempDir(), "f")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if got, release := pollableInput(file); got != io.Reader(file) {
		t.Error("a regular file was switched")
	} else {
		release()
	}
}
