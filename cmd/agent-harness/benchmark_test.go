package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseBenchmarkFlags(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		scenarios []string
		runs      int
		jitter    time.Duration
		seed      uint64 // checked when not zero
	}{
		{"defaults", nil, []string{"F1", "F2", "F3", "F4", "F5"}, 1, 0, 0},
		{"subset keeps order, any case", []string{"--scenarios", "f3,F1"}, []string{"F3", "F1"}, 1, 0, 0},
		{"spaces around entries", []string{"--scenarios= F2 , F4"}, []string{"F2", "F4"}, 1, 0, 0},
		{"runs and jitter with =", []string{"--runs=1000", "--jitter=60000"}, []string{"F1", "F2", "F3", "F4", "F5"}, 1000, 60 * time.Second, 0},
		{"seed with jitter", []string{"--jitter", "50", "--seed", "42"}, []string{"F1", "F2", "F3", "F4", "F5"}, 1, 50 * time.Millisecond, 42},
		{"zero jitter", []string{"--jitter", "0"}, []string{"F1", "F2", "F3", "F4", "F5"}, 1, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parseBenchmarkFlags(tc.args)
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if !slices.Equal(f.opts.Scenarios, tc.scenarios) || f.opts.Runs != tc.runs || f.opts.Jitter != tc.jitter {
				t.Errorf("got %v runs %d jitter %v", f.opts.Scenarios, f.opts.Runs, f.opts.Jitter)
			}
			if tc.seed != 0 && f.opts.Seed != tc.seed {
				t.Errorf("seed %d, want %d", f.opts.Seed, tc.seed)
			}
		})
	}
}

func TestParseBenchmarkFlagsErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"--mode", "chaos"}, `unknown flag "--mode"`},
		{"unknown flag with a newline", []string{"--a\nb"}, `unknown flag "--a\nb"`},
		{"missing value", []string{"--scenarios"}, "--scenarios needs a value"},
		{"value starting with --", []string{"--jitter", "--runs=2"}, "--jitter needs a value"},
		{"empty value", []string{"--scenarios="}, "--scenarios has an empty value"},
		{"blank value", []string{"--runs", " "}, "--runs has an empty value"},
		{"runs out of range", []string{"--runs", "0"}, "invalid --runs \"0\": must be an integer from 1 to 1000"},
		{"runs fraction", []string{"--runs", "1.5"}, "invalid --runs"},
		{"jitter out of range", []string{"--jitter", "60001"}, "invalid --jitter \"60001\": must be an integer from 0 to 60000"},
		{"unknown scenario", []string{"--scenarios", "F1,X"}, `unknown scenario "X"`},
		{"empty entry", []string{"--scenarios", "F1,"}, "empty entry"},
		{"listed twice", []string{"--scenarios", "F2,f2"}, "scenario F2 listed twice"},
		{"seed without jitter", []string{"--seed", "1"}, "--seed needs --jitter"},
		{"seed not a number", []string{"--jitter", "1", "--seed", "-1"}, "invalid --seed"},
		{"positional", []string{"now"}, `unexpected argument "now"`},
		{"shorthand", []string{"-r", "3"}, "unknown shorthand flag"},
		{"unknown flag close to a known one", []string{"--scenario", "F1"}, `unknown flag "--scenario" (did you mean --scenarios?)`},
		{"unknown flag with swapped letters", []string{"--rnus", "2"}, `unknown flag "--rnus" (did you mean --runs?)`},
		{"report-file in a missing directory", []string{"--report-file", "/nonexistent-dir/r.json"}, "flag --report-file: checking report file /nonexistent-dir/r.json: directory /nonexistent-dir does not exist"},
		{"report-file a directory", []string{"--report-file", "/"}, "flag --report-file: checking report file /:"},
		{"report-file on a pseudo file system", []string{"--report-file", "/proc/self/x.json"}, "flag --report-file: checking report file /proc/self/x.json"},
		{"report-file empty", []string{"--report-file="}, "--report-file has an empty value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseBenchmarkFlags(tc.args)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

func TestParseBenchmarkHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"--runs", "2", "--help"}} {
		f, err := parseBenchmarkFlags(args)
		if err != nil || !f.help {
			t.Errorf("%v: help %v err %v", args, f.help, err)
		}
	}
}

func FuzzParseScenarioList(f *testing.F) {
	for _, s := range []string{"F1,F3", "", ",", "f1, F2", "F1,F1", "F6", "F1,,F2", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		list, err := parseScenarioList(s)
		if err != nil {
			return
		}
		if len(list) == 0 || len(list) > 5 {
			t.Errorf("%q gave %v", s, list)
		}
		seen := map[string]bool{}
		for _, name := range list {
			if seen[name] || len(name) != 2 || name[0] != 'F' || name[1] < '1' || name[1] > '5' {
				t.Errorf("%q gave %v", s, list)
			}
			seen[name] = true
		}
	})
}
