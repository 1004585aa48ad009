package state

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in, err string
		want    map[string]string
		invalid []string
	}{
		{in: `{"bookings": 3}`, want: map[string]string{"bookings": "3"}},
		{in: " \n{\"a\":1,\"b\":-2.5e0,\"c\":\"x\",\"d\":null}\n", want: map[string]string{"a": "1", "b": "-2.5e0"}, invalid: []string{"c", "d"}},
		{in: `{}`, want: map[string]string{}},
		{in: ``, err: "no output"},
		{in: `[1]`, err: "not a JSON object"},
		{in: `3`, err: "not a JSON object"},
		{in: `{"a":1}{"b":2}`, err: "more than one JSON value"},
		{in: `{"a":1} x`, err: "more than one JSON value"},
		{in: `{"a":1`, err: "unexpected end"},
		{in: `{"a":1,"a":2}`, err: "given twice"},
		{in: `bookings: 3`, err: "not a JSON object"},
	} {
		got, inv, err := Parse([]byte(c.in))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Parse(%q) error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if len(got) != len(c.want) {
			t.Errorf("Parse(%q) = %v, want %v", c.in, got, c.want)
		}
		for k, v := range c.want {
			if string(got[k]) != v {
				t.Errorf("Parse(%q)[%s] = %s, want %s", c.in, k, got[k], v)
			}
		}
		for _, k := range c.invalid {
			if _, ok := inv[k]; !ok {
				t.Errorf("Parse(%q): %s not invalid", c.in, k)
			}
		}
	}
}

func TestCountAndEffect(t *testing.T) {
	snap := func(out string) Snapshot {
		c, inv, err := Parse([]byte(out))
		s := Snapshot{Counters: c, Invalid: inv}
		if err != nil {
			s.Error = err.Error()
		}
		return s
	}
	before, after := snap(`{"bookings":2,"x":"y","half":1.5,"big":1e300,"e":2e1}`), snap(`{"bookings":5.0,"e":3e1}`)
	if e, err := Effect(before, after, "bookings"); err != nil || e != 3 {
		t.Errorf("bookings effect %d %v, want 3", e, err)
	}
	if e, err := Effect(before, after, "e"); err != nil || e != 10 {
		t.Errorf("e effect %d %v, want 10", e, err)
	}
	for name, want := range map[string]string{
		"x": `counter "x" is not a number`, "half": "not a whole number", "big": "out of range",
		"gone": `before the session: state probe: no counter "gone"`,
	} {
		if _, err := Effect(before, after, name); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
	if _, err := Effect(before, snap(`nope`), "bookings"); err == nil || !strings.Contains(err.Error(), "after the session: state probe: output is not a JSON object") {
		t.Errorf("garbage after: %v", err)
	}
}

func TestParseMap(t *testing.T) {
	if tool, c, err := ParseMap("create_booking=bookings"); err != nil || tool != "create_booking" || c != "bookings" {
		t.Errorf("ParseMap = %q %q %v", tool, c, err)
	}
	for _, bad := range []string{"x", "=y", "x=", ""} {
		if _, _, err := ParseMap(bad); err == nil {
			t.Errorf("ParseMap(%q) accepted", bad)
		}
	}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "n"), []byte("7"), 0o666)
	p := Probe{Command: `printf '{"bookings": %s, "env": "%s"}' "$(cat n)" "$PROBE_X"`, Dir: dir, Env: []string{"PROBE_X=y"}}
	s := p.Run(context.Background(), "before")
	if s.Error != "" || s.Counters["bookings"] != "7" || s.At != "before" || s.Invalid["env"] == "" {
		t.Fatalf("snapshot %+v", s)
	}
	for cmd, want := range map[string]string{
		`echo oops >&2; exit 3`: "state probe: exit status 3: oops",
		`echo '{"a":'`:          "unexpected end",
		`echo hello`:            "not a JSON object",
		`head -c 2000000 /dev/zero | tr '\0' ' '`: "more than 1048576 bytes",
	} {
		if s := (Probe{Command: cmd}).Run(context.Background(), "after"); !strings.Contains(s.Error, want) {
			t.Errorf("%s: error %q, want %q", cmd, s.Error, want)
		}
	}
}

// TestRunTimeout: a probe that hangs — its shell and a grandchild that
// keeps stdout open — ends at the timeout with the reason.
func TestRunTimeout(t *testing.T) {
	start := time.Now()
	s := Probe{Command: `sleep 30 & sleep 30`, Timeout: 200 * time.Millisecond}.Run(context.Background(), "after")
	if s.Error != "state probe: timed out after 200ms" {
		t.Errorf("error %q", s.Error)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the probe took %v", d)
	}
}

func TestSnapshotJSON(t *testing.T) {
	s := Snapshot{At: "after", Counters: map[string]json.Number{"bookings": "2"}}
	b, _ := json.Marshal(s)
	if string(b) != `{"at":"after","counters":{"bookings":2}}` {
		t.Errorf("%s", b)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"bookings": 3}`, `{"a":1,"a":2}`, `{"a":"x"}`, `[]`, ``, `{"a":1}{}`, `{"a":1e99999999}`, `{"a":-0.0}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		c, inv, err := Parse(in)
		if err != nil {
			if c != nil || inv != nil {
				t.Fatal("counters with an error")
			}
			return
		}
		// What Parse accepts is one JSON object.
		var m map[string]json.RawMessage
		if json.Unmarshal(in, &m) != nil {
			t.Fatalf("accepted %q, not an object", in)
		}
		s := Snapshot{Counters: c, Invalid: inv}
		for name := range m {
			_, inC := c[name]
			_, inI := inv[name]
			if inC == inI {
				t.Fatalf("%q: counter %v invalid %v", name, inC, inI)
			}
			s.Count(name) // never panics, never hangs
		}
	})
}
