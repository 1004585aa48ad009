package campaign

import (
	"fmt"
	"io"
	"os"
	"time"
)

// DefaultOutputCap bounds what a run keeps of the agent's stdout and of
// its stderr, each (Runner.OutputCap).
const DefaultOutputCap = 8 << 20

// cappedOutput is a pipe for one of the agent's output streams whose read
// end is copied into a file, at most limit bytes; what is beyond is
// counted and a last line in the file says how much was dropped.
type cappedOutput struct {
	w    *os.File // the child's end
	r    *os.File
	done chan struct{}
}

// newCappedOutput creates path and the pipe that fills it.
func newCappedOutput(path string, limit int64) (*cappedOutput, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		f.Close()
		return nil, err
	}
	c := &cappedOutput{w: w, r: r, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		defer f.Close()
		kept, _ := io.Copy(f, io.LimitReader(r, limit))
		dropped, _ := io.Copy(io.Discard, r)
		if dropped > 0 {
			fmt.Fprintf(f, "\n[agent-harness] campaign: this output was capped at %d bytes; %d more bytes were dropped\n", kept, dropped)
		}
	}()
	return c, nil
}

// started closes the campaign's copy of the child's end (the child holds
// its own).
func (c *cappedOutput) started() { c.w.Close() }

// finish waits until every process that holds the child's end has closed
// it, at most wait, then stops reading.
func (c *cappedOutput) finish(wait time.Duration) {
	c.w.Close()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-c.done:
	case <-t.C:
		c.r.Close()
		<-c.done
	}
}
