// Command precompile compiles plugins into a compilation cache directory
// with the host's own loader: precompile DIR MODULE.wasm...
//
// The tests of internal/plugin run it built without the race detector, which
// slows wazero's compiler about tenfold, so that the Go plugins they load
// under -race come from the cache. It loads each module with
// plugin.Load(Options{CacheDir: DIR}), so the cached code is what the
// tests' own loads would compile; a module that then fails to load (an
// import not allowed, say) is still compiled and cached, and its error is
// printed on stderr without failing the command.
package main

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/cuonztech/agent-harness/internal/plugin"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: precompile DIR MODULE.wasm...")
		os.Exit(2)
	}
	dir, paths := os.Args[1], os.Args[2:]
	ctx := context.Background()
	var wg sync.WaitGroup
	for _, path := range paths {
		wg.Go(func() {
			p, err := plugin.Load(ctx, path, plugin.Options{CacheDir: dir, Log: os.Stderr})
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return
			}
			p.Close(ctx)
		})
	}
	wg.Wait()
}
