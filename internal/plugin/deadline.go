package plugin

import (
	"context"
	"errors"
	"strings"
)

// mergeDeadline returns a context with base's values and limit's deadline
// and cancellation.
func mergeDeadline(base, limit context.Context) (context.Context, context.CancelFunc) {
	var ctx context.Context
	var cancel context.CancelFunc
	if d, ok := limit.Deadline(); ok {
		ctx, cancel = context.WithDeadline(base, d)
	} else {
		ctx, cancel = context.WithCancel(base)
	}
	stop := context.AfterFunc(limit, cancel)
	return ctx, func() { stop(); cancel() }
}

// shortError cuts wazero's stack trace and names a deadline.
func shortError(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return errors.New("deadline exceeded")
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return errors.New(msg)
}
