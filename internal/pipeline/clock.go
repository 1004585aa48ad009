package pipeline

import (
	"context"
	"time"
)

// Clock is the time source of the pipeline: event timestamps, fault delays
// and the session-end grace. Tests inject a fake.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// realClock is the system clock.
type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// sleep waits d on c, or until ctx is done.
func sleep(ctx context.Context, c Clock, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	select {
	case <-c.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
