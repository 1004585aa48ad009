package reportfile

import (
	"os"
	"path/filepath"
)

// Replace replaces path with data through a temporary file in the same
// directory (".NAME.*.tmp"), renamed over it: a reader sees the old file
// or the new one. Unlike a Writer it neither creates parent directories
// nor falls back to writing in place; it is for files written once (the
// campaign's plan, records and summaries).
func Replace(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	err = writeClose(f, data, false)
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
