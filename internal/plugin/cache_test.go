package plugin_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cuonztech/agent-harness/internal/plugin"
	"github.com/cuonztech/agent-harness/plugins/minimal"
)

// cacheFiles lists the compiled entries under dir.
func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	return files
}

func TestCompilationCache(t *testing.T) {
	// The minimal plugin: what is tested is the cache, not the compiler, and
	// a Go plugin takes wazero ~15 s of CPU to compile under -race.
	path := filepath.Join(t.TempDir(), "minimal.wasm")
	if err := os.WriteFile(path, minimal.Wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dir := t.TempDir()
	log := &logBuffer{}
	opts := plugin.Options{CacheDir: dir, Log: log}

	p, err := plugin.Load(ctx, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	if p.LoadStats().CacheDir != dir {
		t.Errorf("CacheDir = %q", p.LoadStats().CacheDir)
	}
	p.Close(ctx)
	files := cacheFiles(t, dir)
	if len(files) != 1 || !strings.Contains(files[0], "wazero-") {
		t.Fatalf("cache files %q", files)
	}

	t.Run("corrupt entry", func(t *testing.T) {
		// Flip a byte of the machine code: wazero's checksum catches it and
		// fails the compile instead of recompiling.
		b, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/2] ^= 0xff
		if err := os.WriteFile(files[0], b, 0o600); err != nil {
			t.Fatal(err)
		}
		p, err := plugin.Load(ctx, path, opts)
		if err != nil {
			t.Fatalf("Load with a corrupt cache entry: %v", err)
		}
		p.Close(ctx)
		if !strings.Contains(log.String(), "[agent-harness] plugin host: compilation cache "+dir+" failed") {
			t.Errorf("log %q", log.String())
		}
	})

	small := filepath.Join(t.TempDir(), "minimal.wasm")
	os.WriteFile(small, minimal.Wasm, 0o644)

	t.Run("two loaders share a directory", func(t *testing.T) {
		shared := t.TempDir()
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p, err := plugin.Load(ctx, small, plugin.Options{CacheDir: shared})
				if err == nil {
					err = p.Close(ctx)
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
		if n := len(cacheFiles(t, shared)); n != 1 {
			t.Errorf("%d cache entries, want 1 (temp files renamed into place)", n)
		}
	})

	t.Run("unusable directory", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		os.WriteFile(file, nil, 0o600)
		log := &logBuffer{}
		p, err := plugin.Load(ctx, small, plugin.Options{CacheDir: file, Log: log})
		if err != nil {
			t.Fatal(err)
		}
		p.Close(ctx)
		if p.LoadStats().CacheDir != "" || !strings.Contains(log.String(), "unusable, compiling without it") {
			t.Errorf("stats %+v, log %q", p.LoadStats(), log.String())
		}
	})
}
