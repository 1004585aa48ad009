package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSampleServerState: `sample-server state FILE` prints the state
// file's counts as one JSON object (a replayed key books nothing; no file
// yet counts 0), fails with exit 1 on a line that is no execution, and
// --dedupe-keys is accepted (behaviour §16.4).
func TestSampleServerState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.jsonl")
	run := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := runSampleServer(context.Background(), args, stdio{in: strings.NewReader(""), out: &out, err: io.Discard})
		return out.String(), err
	}
	if out, err := run("state", path); err != nil || out != `{"bookings":0,"replayed":0,"cancellations":0,"executions":0}`+"\n" {
		t.Errorf("no file: %q %v", out, err)
	}
	os.WriteFile(path, []byte(`{"seq":1,"tool":"create_booking","result":{"booking_id":"B-0001","replayed":false}}
{"seq":2,"tool":"create_booking","result":{"booking_id":"B-0001","replayed":true}}
`), 0o666)
	if out, err := run("--dedupe-keys", "state", path); err != nil || out != `{"bookings":1,"replayed":1,"cancellations":0,"executions":2}`+"\n" {
		t.Errorf("counts: %q %v", out, err)
	}
	os.WriteFile(path, []byte("hello\n"), 0o666)
	if out, err := run("state", path); err == nil || out != "" || cmdExit("sample-server", err, io.Discard, io.Discard) != 1 {
		t.Errorf("foreign line: %q %v", out, err)
	}
	if _, err := run("state"); err == nil || cmdExit("sample-server", err, io.Discard, io.Discard) != 2 {
		t.Errorf("no FILE: %v", err)
	}
	if got := listSampleTools(t, "--dedupe-keys"); len(got) != 4 {
		t.Errorf("--dedupe-keys lists %v", got)
	}
}
