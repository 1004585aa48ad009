package judge

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"
)

func concat(parts [][]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// TestWriteFileEqualsAppendFile: the parts are the bytes of AppendFile, in
// sessions that change old operations (out-of-order arenas), with runs
// referenced at any length.
func TestWriteFileEqualsAppendFile(t *testing.T) {
	for seed := range uint64(8) {
		j := New(Config{Scenario: "F1"})
		j.enc.file.minRef = int(seed % 4) // 0: the default
		meta := FileMeta{Status: "running", ToolClassification: toolTable}
		for i, ev := range randomSession(seed, 300) {
			j.Apply(ev)
			var got []byte
			var nparts int
			if err := j.WriteFile(meta, func(parts [][]byte) error {
				got, nparts = concat(parts), len(parts)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if want := j.AppendFile(nil, meta); !bytes.Equal(got, want) {
				t.Fatalf("seed %d event %d: WriteFile differs from AppendFile:\n%s", seed, i, lineDiff(indent(want), indent(got)))
			}
			if seed%4 == 1 && nparts < 2 {
				t.Fatalf("seed %d event %d: %d part(s) with every run referenced", seed, i, nparts)
			}
		}
	}
}

// TestWriteFileEventsMeanwhile: events applied while write runs do not
// change the parts being written, and show in the next file.
func TestWriteFileEventsMeanwhile(t *testing.T) {
	evs := randomSession(3, 200)
	j := Replay(Config{Scenario: "F1"}, evs[:100])
	j.enc.file.minRef = 1
	want := j.AppendFile(nil, FileMeta{})
	var got []byte
	err := j.WriteFile(FileMeta{}, func(parts [][]byte) error {
		for _, ev := range evs[100:] {
			j.Apply(ev)
		}
		got = concat(parts)
		return errors.New("disk full")
	})
	if err == nil || err.Error() != "disk full" {
		t.Fatalf("error %v, want write's error", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("parts changed while written:\n%s", lineDiff(indent(want), indent(got)))
	}
	if after, all := j.AppendFile(nil, FileMeta{}), Replay(Config{Scenario: "F1"}, evs).AppendFile(nil, FileMeta{}); !bytes.Equal(after, all) {
		t.Fatal("events applied during WriteFile are missing from the next file")
	}
}

// TestWriteFileConcurrent runs WriteFile, AppendFile and Apply from
// several goroutines (run with -race).
func TestWriteFileConcurrent(t *testing.T) {
	evs := randomSession(5, 400)
	j := New(Config{Scenario: "F2"})
	var wg sync.WaitGroup
	done := make(chan struct{})
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				var b []byte
				if g == 0 {
					b = j.AppendFile(nil, FileMeta{})
				} else if err := j.WriteFile(FileMeta{}, func(parts [][]byte) error { b = concat(parts); return nil }); err != nil {
					panic(err)
				}
				if len(b) == 0 || b[len(b)-1] != '}' {
					panic(fmt.Sprintf("truncated file %q", b))
				}
			}
		}()
	}
	for _, ev := range evs {
		j.Apply(ev)
	}
	close(done)
	wg.Wait()
	if got, want := j.AppendFile(nil, FileMeta{}), Replay(Config{Scenario: "F2"}, evs).AppendFile(nil, FileMeta{}); !bytes.Equal(got, want) {
		t.Fatal("concurrent file writers changed the result")
	}
}
