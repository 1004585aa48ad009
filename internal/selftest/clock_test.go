package selftest

import (
	"testing"
	"time"
)

func TestClockNeverRunsBackwards(t *testing.T) {
	c := NewClock(epoch)
	c.Advance(-time.Hour)
	c.Advance(time.Second)
	if got := c.Now().Sub(epoch); got != time.Second {
		t.Errorf("clock at +%v, want +1s", got)
	}
	pc := pipelineClock{c}
	<-pc.After(time.Minute)
	if got := c.Now().Sub(epoch); got != time.Minute+time.Second {
		t.Errorf("After did not advance the clock: +%v", got)
	}
}
