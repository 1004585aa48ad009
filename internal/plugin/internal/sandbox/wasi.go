package sandbox

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// WASIModule is the module name of WASI preview 1 imports.
const WASIModule = "wasi_snapshot_preview1"

// HostModule is the module name of the harness's own imports.
const HostModule = "agent_harness"

// WASI errno values (wasi_snapshot_preview1 "errno").
const (
	errnoSuccess = 0
	errnoBadf    = 8
	errnoFault   = 21
	errnoIntr    = 27
	errnoInval   = 28
)

const (
	i32 = api.ValueTypeI32
	i64 = api.ValueTypeI64
)

// fn is one whitelisted host function.
type fn struct {
	name            string
	params, results []api.ValueType
	impl            api.GoModuleFunc
}

// Signature is a host function's parameter and result types.
type Signature struct {
	Params, Results []api.ValueType
}

// wasiFuncs is the whitelist: exactly what a Go (GOOS=wasip1) c-shared
// module imports when it uses the runtime, fmt, encoding/json and other
// packages that do not open files — checked by a test that lists a real
// module's imports. The fd functions only know fds 0–2 (stdin is empty)
// and report no preopened directories. path_*, sock_* and fd_seek are
// absent, so a module that opens files (os.ReadFile imports path_open) is
// refused at load.
var wasiFuncs = []fn{
	{"args_get", []api.ValueType{i32, i32}, []api.ValueType{i32}, emptyVector},
	{"args_sizes_get", []api.ValueType{i32, i32}, []api.ValueType{i32}, emptySizes},
	{"environ_get", []api.ValueType{i32, i32}, []api.ValueType{i32}, emptyVector},
	{"environ_sizes_get", []api.ValueType{i32, i32}, []api.ValueType{i32}, emptySizes},
	{"clock_time_get", []api.ValueType{i32, i64, i32}, []api.ValueType{i32}, clockTimeGet},
	{"random_get", []api.ValueType{i32, i32}, []api.ValueType{i32}, randomGet},
	{"fd_write", []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, fdWrite},
	{"fd_read", []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, fdRead},
	{"fd_close", []api.ValueType{i32}, []api.ValueType{i32}, stdioOnly},
	{"fd_fdstat_get", []api.ValueType{i32, i32}, []api.ValueType{i32}, fdFdstatGet},
	{"fd_fdstat_set_flags", []api.ValueType{i32, i32}, []api.ValueType{i32}, stdioOnly},
	{"fd_prestat_get", []api.ValueType{i32, i32}, []api.ValueType{i32}, badf},
	{"fd_prestat_dir_name", []api.ValueType{i32, i32, i32}, []api.ValueType{i32}, badf},
	{"poll_oneoff", []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, pollOneoff},
	{"proc_exit", []api.ValueType{i32}, nil, procExit},
	{"sched_yield", nil, []api.ValueType{i32}, success},
}

var hostFuncs = []fn{
	{"log", []api.ValueType{i32, i32, i32}, nil, hostLog},
}

// Allowed reports whether module.name may be imported and with which
// signature.
func Allowed(module, name string) (Signature, bool) {
	var list []fn
	switch module {
	case WASIModule:
		list = wasiFuncs
	case HostModule:
		list = hostFuncs
	}
	for _, f := range list {
		if f.name == name {
			return Signature{f.params, f.results}, true
		}
	}
	return Signature{}, false
}

// Names lists the whitelisted imports as "module.name".
func Names() []string {
	var out []string
	for _, f := range wasiFuncs {
		out = append(out, WASIModule+"."+f.name)
	}
	for _, f := range hostFuncs {
		out = append(out, HostModule+"."+f.name)
	}
	return out
}

// Instantiate defines the two host modules in r.
func Instantiate(ctx context.Context, r wazero.Runtime) error {
	for _, m := range []struct {
		name  string
		funcs []fn
	}{{WASIModule, wasiFuncs}, {HostModule, hostFuncs}} {
		b := r.NewHostModuleBuilder(m.name)
		for _, f := range m.funcs {
			b.NewFunctionBuilder().WithGoModuleFunction(f.impl, f.params, f.results).Export(f.name)
		}
		if _, err := b.Instantiate(ctx); err != nil {
			return fmt.Errorf("instantiating host module %s: %w", m.name, err)
		}
	}
	return nil
}

func success(_ context.Context, _ api.Module, stack []uint64) { stack[0] = errnoSuccess }

func badf(_ context.Context, _ api.Module, stack []uint64) { stack[0] = errnoBadf }

// stdioOnly accepts fds 0–2 as a no-op and refuses any other fd: there are
// no other open files.
func stdioOnly(_ context.Context, _ api.Module, stack []uint64) {
	if uint32(stack[0]) <= 2 {
		stack[0] = errnoSuccess
		return
	}
	stack[0] = errnoBadf
}

// emptySizes reports zero arguments / environment variables.
func emptySizes(_ context.Context, mod api.Module, stack []uint64) {
	mem := mod.Memory()
	if !mem.WriteUint32Le(uint32(stack[0]), 0) || !mem.WriteUint32Le(uint32(stack[1]), 0) {
		stack[0] = errnoFault
		return
	}
	stack[0] = errnoSuccess
}

// emptyVector writes nothing: there is nothing to write.
func emptyVector(_ context.Context, _ api.Module, stack []uint64) { stack[0] = errnoSuccess }

func clockTimeGet(ctx context.Context, mod api.Module, stack []uint64) {
	id, resultPtr := uint32(stack[0]), uint32(stack[2])
	var v int64
	elapsed := envFrom(ctx).now()
	switch id {
	case 0: // realtime
		v = Epoch.UnixNano() + int64(elapsed)
	case 1, 2, 3: // monotonic, process and thread CPU time
		v = int64(elapsed)
	default:
		stack[0] = errnoInval
		return
	}
	if !mod.Memory().WriteUint64Le(resultPtr, uint64(v)) {
		stack[0] = errnoFault
		return
	}
	stack[0] = errnoSuccess
}

// randomChunk is how much random_get fills between looks at the call's
// deadline: a host function is not stopped by it, and a guest may ask to
// fill all of its memory.
const randomChunk = 1 << 20

func randomGet(ctx context.Context, mod api.Module, stack []uint64) {
	buf, n := uint32(stack[0]), uint32(stack[1])
	p, ok := mod.Memory().Read(buf, n)
	if !ok {
		stack[0] = errnoFault
		return
	}
	env := envFrom(ctx)
	for len(p) > 0 {
		if ctx.Err() != nil {
			// The call is over: wazero closes the module on return.
			stack[0] = errnoIntr
			return
		}
		k := min(len(p), randomChunk)
		env.read(p[:k])
		p = p[k:]
	}
	stack[0] = errnoSuccess
}

// maxIovs bounds the work of one fd_write.
const maxIovs = 1024

func fdWrite(ctx context.Context, mod api.Module, stack []uint64) {
	fd, iovs, iovsLen, nwrittenPtr := uint32(stack[0]), uint32(stack[1]), uint32(stack[2]), uint32(stack[3])
	var stream string
	switch fd {
	case 1:
		stream = "stdout"
	case 2:
		stream = "stderr"
	default:
		stack[0] = errnoBadf
		return
	}
	if iovsLen > maxIovs {
		stack[0] = errnoInval
		return
	}
	mem := mod.Memory()
	env := envFrom(ctx)
	var total uint32
	for i := uint32(0); i < iovsLen; i++ {
		if ctx.Err() != nil {
			// The call is over (deadline): wazero closes the module on return.
			stack[0] = errnoIntr
			return
		}
		vec, ok := mem.Read(iovs+i*8, 8)
		if !ok {
			stack[0] = errnoFault
			return
		}
		p, ok := mem.Read(binary.LittleEndian.Uint32(vec), binary.LittleEndian.Uint32(vec[4:]))
		if !ok {
			stack[0] = errnoFault
			return
		}
		if env.Log != nil && len(p) > 0 {
			env.Log(stream, p)
		}
		total += uint32(len(p))
	}
	if !mem.WriteUint32Le(nwrittenPtr, total) {
		stack[0] = errnoFault
		return
	}
	stack[0] = errnoSuccess
}

// fdRead reads end-of-file from stdin and refuses every other fd.
func fdRead(_ context.Context, mod api.Module, stack []uint64) {
	fd, nreadPtr := uint32(stack[0]), uint32(stack[3])
	if fd != 0 {
		stack[0] = errnoBadf
		return
	}
	if !mod.Memory().WriteUint32Le(nreadPtr, 0) {
		stack[0] = errnoFault
		return
	}
	stack[0] = errnoSuccess
}

// fdFdstatGet describes fds 0–2 as character devices (stdin readable,
// stdout/stderr writable); every other fd is closed.
func fdFdstatGet(_ context.Context, mod api.Module, stack []uint64) {
	fd, ptr := uint32(stack[0]), uint32(stack[1])
	if fd > 2 {
		stack[0] = errnoBadf
		return
	}
	var st [24]byte
	st[0] = 2 // filetype character_device
	const rightFdRead, rightFdWrite = 1 << 1, 1 << 6
	rights := uint64(rightFdWrite)
	if fd == 0 {
		rights = rightFdRead
	}
	binary.LittleEndian.PutUint64(st[8:], rights)
	if !mod.Memory().Write(ptr, st[:]) {
		stack[0] = errnoFault
		return
	}
	stack[0] = errnoSuccess
}

// maxSubscriptions bounds the work of one poll_oneoff.
const maxSubscriptions = 1024

// pollOneoff never waits: clock subscriptions advance the fake clock by
// their timeout and fire at once; fd subscriptions fire with EBADF (there
// are no files to wait for). The host, not the guest, does real waiting.
func pollOneoff(ctx context.Context, mod api.Module, stack []uint64) {
	in, out, nsubs, neventsPtr := uint32(stack[0]), uint32(stack[1]), uint32(stack[2]), uint32(stack[3])
	if nsubs == 0 || nsubs > maxSubscriptions {
		stack[0] = errnoInval
		return
	}
	mem := mod.Memory()
	inBuf, ok := mem.Read(in, nsubs*48)
	if !ok {
		stack[0] = errnoFault
		return
	}
	outBuf, ok := mem.Read(out, nsubs*32)
	if !ok {
		stack[0] = errnoFault
		return
	}
	env := envFrom(ctx)
	var sleep time.Duration = -1
	for i := uint32(0); i < nsubs; i++ {
		sub := inBuf[i*48 : (i+1)*48]
		ev := outBuf[i*32 : (i+1)*32]
		clear(ev)
		copy(ev[:8], sub[:8]) // userdata
		typ := sub[8]
		ev[10] = typ
		switch typ {
		case 0: // clock
			timeout := time.Duration(binary.LittleEndian.Uint64(sub[24:32]))
			if flags := binary.LittleEndian.Uint16(sub[40:42]); flags&1 != 0 { // absolute
				timeout = 0
			}
			if timeout < 0 {
				timeout = 0
			}
			if sleep < 0 || timeout < sleep {
				sleep = timeout
			}
		default: // fd_read, fd_write
			ev[8] = errnoBadf
		}
	}
	env.sleep(sleep)
	if !mem.WriteUint32Le(neventsPtr, nsubs) {
		stack[0] = errnoFault
		return
	}
	stack[0] = errnoSuccess
}

// procExit ends the instance: it is closed and the running call returns
// the exit error, so the host discards it.
func procExit(ctx context.Context, mod api.Module, stack []uint64) {
	code := uint32(stack[0])
	_ = mod.CloseWithExitCode(ctx, code)
	panic(sys.NewExitError(code))
}

// Log levels of agent_harness.log.
var levels = []string{"debug", "info", "warn", "error"}

// maxLogMessage bounds one agent_harness.log message.
const maxLogMessage = 64 << 10

func hostLog(ctx context.Context, mod api.Module, stack []uint64) {
	level, ptr, n := uint32(stack[0]), uint32(stack[1]), uint32(stack[2])
	if n > maxLogMessage {
		n = maxLogMessage
	}
	p, ok := mod.Memory().Read(ptr, n)
	if !ok {
		panic(fmt.Errorf("agent_harness.log: message out of memory bounds (ptr %d, len %d)", ptr, n))
	}
	name := "log"
	if level < uint32(len(levels)) {
		name = levels[level]
	}
	if env := envFrom(ctx); env.Log != nil {
		line := make([]byte, 0, len(p)+1)
		line = append(line, p...)
		line = append(line, '\n')
		env.Log(name, line)
	}
}
