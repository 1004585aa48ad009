//go:build linux

package proc

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	tests := []struct {
		name  string
		stat  string
		state byte
		pgrp  int
		ok    bool
	}{
		{"plain", "123 (sleep) S 1 120 120 0 -1", 'S', 120, true},
		{"comm with spaces and parens", "7 (a (b) c) Z 1 99 99 0", 'Z', 99, true},
		{"truncated", "7 (x) R", 0, 0, false},
		{"garbage", "nonsense", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state, pgrp, ok := parseStat([]byte(tt.stat))
			if state != tt.state || pgrp != tt.pgrp || ok != tt.ok {
				t.Errorf("got %q %d %v", state, pgrp, ok)
			}
		})
	}
}

// TestStatFields: the parent and the group of a /proc/PID/stat line whose
// comm holds a ")" (moved here with the campaign's process scan).
func TestStatFields(t *testing.T) {
	state, ppid, pgrp, ok := statFields([]byte("123 (a) b) Z 1 456 456 0 -1"))
	if !ok || state != 'Z' || ppid != 1 || pgrp != 456 {
		t.Errorf("%c %d %d %v", state, ppid, pgrp, ok)
	}
	if _, _, _, ok := statFields([]byte("garbage")); ok {
		t.Error("garbage parsed")
	}
}

// gone reports whether pid is not running (gone or an unreaped zombie).
func gone(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	state, _, ok := parseStat(b)
	return ok && (state == 'Z' || state == 'X')
}

func TestStopEndsTheGroup(t *testing.T) {
	tests := []struct {
		name   string
		script string
	}{
		// sh exits on stdin EOF; its background sleep must still go.
		{"orphaned grandchild", `sleep 300 & echo $!; read x`},
		// Ignores stdin EOF and SIGTERM: only SIGKILL ends it.
		{"stubborn", `trap '' TERM; sleep 300 & echo $!; while :; do sleep 1; done`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Start(Spec{Command: "sh", Args: []string{"-c", tt.script}, Env: os.Environ()})
			if err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(p.Stdout()).ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			grandchild, err := strconv.Atoi(strings.TrimSpace(line))
			if err != nil {
				t.Fatal(err)
			}
			p.Stop(100 * time.Millisecond)
			select {
			case <-p.Done():
			default:
				t.Fatal("Stop returned before the child was reaped")
			}
			for _, pid := range []int{p.Pid(), grandchild} {
				if !gone(pid) {
					t.Errorf("process %d still runs after Stop", pid)
				}
			}
			p.Close()
		})
	}
}

func TestStartFailure(t *testing.T) {
	if _, err := Start(Spec{Command: "/nonexistent/x"}); err == nil {
		t.Fatal("Start of a missing command succeeded")
	}
	if _, err := Start(Spec{Command: "sh", Dir: filepath.Join(t.TempDir(), "missing")}); err == nil {
		t.Fatal("Start in a missing directory succeeded")
	}
}

func TestExitDescription(t *testing.T) {
	p, err := Start(Spec{Command: "sh", Args: []string{"-c", "exit 3"}})
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	if got := p.ExitDescription(); got != "exit status 3" {
		t.Errorf("got %q", got)
	}
	p.Stop(time.Millisecond)
	p.Close()
}
