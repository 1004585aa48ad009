package plugin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"

	"github.com/cuonztech/agent-harness/internal/plugin/internal/sandbox"
)

// instance is one instantiated module. It is used by one goroutine at a
// time (the pool hands it out exclusively) and never after a failed call.
type instance struct {
	mod   api.Module
	env   *sandbox.Env
	ctx   context.Context // carries env for the host functions
	alloc api.Function
	free  api.Function
	init  api.Function
	hooks map[string]api.Function

	buf, bufCap uint32 // input buffer owned by the host (from ah_alloc)
	calls       int
	stack       [2]uint64
}

// minBuffer is the smallest input buffer requested from ah_alloc.
const minBuffer = 4 << 10

// call writes input into the instance's buffer, calls fn(ptr, len) with a
// deadline and returns a copy of the output (nil when the guest returned
// length 0). Any error leaves the instance unusable.
func (in *instance) call(fn api.Function, input []byte, timeout time.Duration, outputLimit int) ([]byte, error) {
	ctx, cancel := context.WithTimeout(in.ctx, timeout)
	defer cancel()
	in.calls++
	ptr, err := in.buffer(ctx, len(input))
	if err != nil {
		return nil, callError(ctx, timeout, "ah_alloc", err)
	}
	mem := in.mod.Memory()
	if !mem.Write(ptr, input) {
		return nil, fmt.Errorf("ah_alloc returned %d, outside memory for %d bytes", ptr, len(input))
	}
	in.stack[0], in.stack[1] = uint64(ptr), uint64(len(input))
	return in.invoke(ctx, fn, timeout, outputLimit)
}

// callNoInput calls fn() (ah_manifest) and returns its output.
func (in *instance) callNoInput(fn api.Function, timeout time.Duration, outputLimit int) ([]byte, error) {
	ctx, cancel := context.WithTimeout(in.ctx, timeout)
	defer cancel()
	return in.invoke(ctx, fn, timeout, outputLimit)
}

// invoke calls fn with the instance's stack as its arguments (ctx carries
// the deadline of timeout) and returns a copy of its packed output.
func (in *instance) invoke(ctx context.Context, fn api.Function, timeout time.Duration, outputLimit int) ([]byte, error) {
	export := fn.Definition().ExportNames()[0]
	if err := fn.CallWithStack(ctx, in.stack[:]); err != nil {
		return nil, callError(ctx, timeout, export, err)
	}
	out, err := in.output(in.stack[0], outputLimit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", export, err)
	}
	return out, nil
}

// output decodes a packed ptr<<32|len result and copies the bytes out.
func (in *instance) output(res uint64, limit int) ([]byte, error) {
	ptr, n := uint32(res>>32), uint32(res)
	if n == 0 {
		return nil, nil
	}
	if int64(n) > int64(limit) {
		return nil, fmt.Errorf("output of %d bytes exceeds the limit of %d", n, limit)
	}
	p, ok := in.mod.Memory().Read(ptr, n)
	if !ok {
		return nil, fmt.Errorf("output (ptr %d, len %d) lies outside memory (%d bytes)", ptr, n, in.mod.Memory().Size())
	}
	return append([]byte(nil), p...), nil
}

// buffer returns a host-owned input buffer of at least n bytes, replacing
// the current one (ah_free, then ah_alloc) when it is too small.
func (in *instance) buffer(ctx context.Context, n int) (uint32, error) {
	if uint32(n) <= in.bufCap && in.buf != 0 {
		return in.buf, nil
	}
	if in.buf != 0 {
		in.stack[0] = uint64(in.buf)
		if err := in.free.CallWithStack(ctx, in.stack[:]); err != nil {
			return 0, err
		}
		in.buf, in.bufCap = 0, 0
	}
	size := uint32(minBuffer)
	for size < uint32(n) {
		size *= 2
	}
	in.stack[0] = uint64(size)
	if err := in.alloc.CallWithStack(ctx, in.stack[:]); err != nil {
		return 0, err
	}
	ptr := uint32(in.stack[0])
	if ptr == 0 {
		return 0, fmt.Errorf("ah_alloc(%d) returned 0", size)
	}
	if uint64(ptr)+uint64(size) > uint64(in.mod.Memory().Size()) {
		return 0, fmt.Errorf("ah_alloc(%d) returned %d, beyond memory (%d bytes)", size, ptr, in.mod.Memory().Size())
	}
	in.buf, in.bufCap = ptr, size
	return ptr, nil
}

// memoryBytes is the instance's current linear memory size.
func (in *instance) memoryBytes() uint32 { return in.mod.Memory().Size() }

func (in *instance) close() { _ = in.mod.Close(context.Background()) }

// callError turns a failed guest call into a short detail: deadline, exit
// or trap (first line of wazero's message, without the stack trace).
func callError(ctx context.Context, timeout time.Duration, export string, err error) error {
	var exit *sys.ExitError
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded),
		errors.As(err, &exit) && exit.ExitCode() == sys.ExitCodeDeadlineExceeded:
		return fmt.Errorf("%s: deadline of %v exceeded", export, timeout)
	case errors.As(err, &exit):
		return fmt.Errorf("%s: exited with code %d", export, exit.ExitCode())
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return fmt.Errorf("%s: trap: %s", export, msg)
}
