package relay

import (
	"io"
	"os"
)

// pollableInput returns a reader of r that waits for data in the Go
// netpoller instead of in a blocking read(2). With a blocking read the
// agent reader's thread keeps its scheduler slot while it waits, and the
// goroutine just started for a tools/call can sit behind it until the
// runtime takes the slot back — measured here as ~100 µs added per call.
//
// Only pipes and sockets are switched (never a terminal or a file): the
// descriptor is duplicated and O_NONBLOCK set on the shared open file for
// the session; release closes the duplicate, which also ends a read still
// waiting, and clears O_NONBLOCK again. Anything else is returned as is.
func pollableInput(r io.Reader) (_ io.Reader, release func()) {
	f, ok := r.(*os.File)
	if !ok {
		return r, func() {}
	}
	nf, release := nonblockingDup(f)
	if nf == nil {
		return r, release
	}
	return nf, release
}
