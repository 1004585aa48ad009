package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/cuonztech/agent-harness/internal/harness"
)

// base is the one required flag, prepended to every case that does not test
// its absence.
var base = []string{"--upstream-command", "node"}

func withBase(args ...string) []string { return append(append([]string{}, base...), args...) }

// valueFlags are the flags that take a value, with a valid value each.
var valueFlags = map[string]string{
	"upstream-command": "node", "upstream-arg": "x", "upstream-args": "a,b", "upstream-cwd": "/tmp",
	"upstream-env-var": "A=1", "upstream-env": "A=1", "scenario": "F1", "mode": "chaos",
	"error-rate": "0.5", "seed": "1", "retry-after": "5", "write-tools": "a_*", "read-tools": "b_*",
	"key-fields": "k", "audit-tools": "off", "report-file": "r.json", "plugin": "p.wasm",
	"plugin-config": "p={}", "plugin-timeout": "1s", "plugin-memory": "64", "plugin-cache-dir": "/tmp/c",
	"plugin-start-timeout": "2s", "plugin-input-limit": "4096", "plugin-output-limit": "4096",
	"plugin-log-limit": "100", "plugin-recycle-calls": "7", "plugin-recycle-memory": "32",
	"plugin-max-failures": "2", "plugin-pool-size": "1", "plugin-max-instances": "2", "plugin-max-delay": "1s",
	"upstream-timeout": "5s", "idempotent-tools": "set_*", "trace": "t.trace", "report-interval": "0s",
	"listen": "0", "listen-path": "/x", "listen-allow-origin": "https://a.example", "exit-when-idle": "1s",
	"max-sessions": "4", "session-idle": "1m",
	"fault-layer": "http", "ghost-hold": "1s", "upstream-url": "http://127.0.0.1:1/mcp",
	"upstream-header": "X-A: b", "upstream-header-env": "X-Token=PATH", "on-cancel": "swallow",
	"state-command": "true", "state-map": "create_booking=bookings", "state-timeout": "5s",
}

// singleValueFlags may be given once.
var singleValueFlags = []string{
	"upstream-command", "upstream-cwd", "scenario", "mode", "error-rate", "seed", "retry-after",
	"audit-tools", "report-file", "plugin-timeout", "plugin-memory", "plugin-cache-dir", "upstream-timeout",
	"plugin-start-timeout", "plugin-input-limit", "plugin-output-limit", "plugin-log-limit", "plugin-recycle-calls",
	"plugin-recycle-memory", "plugin-max-failures", "plugin-pool-size", "plugin-max-instances", "plugin-max-delay",
	"trace", "report-interval",
	"listen", "listen-path", "exit-when-idle", "max-sessions", "session-idle", "fault-layer", "ghost-hold", "upstream-url",
	"on-cancel",
}

func TestProxyFlagTablesCoverEveryFlag(t *testing.T) {
	s := proxyFlagSet(&proxyOptions{}, &parseState{})
	for name, m := range s.meta {
		if _, ok := valueFlags[name]; !ok && m.arg != "" {
			t.Errorf("flag --%s has no valid value in valueFlags", name)
		}
	}
	for _, name := range singleValueFlags {
		if m, ok := s.meta[name]; !ok || m.list {
			t.Errorf("--%s listed as single-value but is not", name)
		}
	}
}

// both returns the two spellings of a flag with a value.
func both(name, value string) map[string][]string {
	return map[string][]string{
		"space": {"--" + name, value},
		"equal": {"--" + name + "=" + value},
	}
}

type flagErrorCase struct {
	name string
	args []string // after base unless noBase
	want string   // the message after "agent-harness proxy: "
}

// valueErrorCases are the wrong values of behaviour §2.7, each tested in both
// syntaxes.
var valueErrorCases = []struct {
	name, flag, value, want string
	extra                   []string
}{
	{"retry-after zero", "retry-after", "0", "flag --retry-after: 0 is out of range (1–86400 seconds)", []string{"--scenario", "F2"}},
	{"retry-after above max", "retry-after", "86401", "flag --retry-after: 86401 is out of range (1–86400 seconds)", []string{"--scenario", "F2"}},
	{"retry-after negative", "retry-after", "-1", "flag --retry-after: -1 is out of range (1–86400 seconds)", []string{"--scenario", "F2"}},
	{"retry-after overflow", "retry-after", "99999999999999999999", "flag --retry-after: 99999999999999999999 is out of range (1–86400 seconds)", []string{"--scenario", "F2"}},
	{"retry-after fraction", "retry-after", "1.5", `flag --retry-after: "1.5" is not a whole number of seconds`, []string{"--scenario", "F2"}},
	{"retry-after with unit", "retry-after", "60s", `flag --retry-after: "60s" is not a whole number of seconds`, []string{"--scenario", "F2"}},
	{"error-rate negative", "error-rate", "-0.1", "flag --error-rate: -0.1 is out of range (0–1)", []string{"--mode", "chaos"}},
	{"error-rate above one", "error-rate", "1.01", "flag --error-rate: 1.01 is out of range (0–1)", []string{"--mode", "chaos"}},
	{"error-rate NaN", "error-rate", "NaN", `flag --error-rate: "NaN" is not a number`, []string{"--mode", "chaos"}},
	{"error-rate Inf", "error-rate", "Inf", `flag --error-rate: "Inf" is not a number`, []string{"--mode", "chaos"}},
	{"error-rate hex", "error-rate", "0x1p-2", `flag --error-rate: "0x1p-2" is not a number`, []string{"--mode", "chaos"}},
	{"error-rate percent", "error-rate", "20%", `flag --error-rate: "20%" is not a number`, []string{"--mode", "chaos"}},
	{"seed not an integer", "seed", "abc", `flag --seed: "abc" is not an integer`, []string{"--mode", "chaos"}},
	{"seed fraction", "seed", "1.5", `flag --seed: "1.5" is not an integer`, []string{"--mode", "chaos"}},
	{"seed overflow", "seed", "9223372036854775808", "flag --seed: 9223372036854775808 is out of range (a 64-bit signed integer)", []string{"--mode", "chaos"}},
	{"scenario F6", "scenario", "F6", `flag --scenario: "F6" is not a scenario (F1–F5; other names need a --plugin that declares them)`, nil},
	{"scenario F0", "scenario", "F0", `flag --scenario: "F0" is not a scenario (F1–F5; other names need a --plugin that declares them)`, nil},
	{"scenario plugin name without plugin", "scenario", "slow_write", `flag --scenario: "slow_write" is not a scenario (F1–F5; other names need a --plugin that declares them)`, nil},
	{"scenario with space", "scenario", "F 1", `flag --scenario: "F 1" is not a scenario name (F1–F5, or a plugin fault name of letters, digits, _ . -)`, nil},
	{"scenario bad name with plugin", "scenario", "a/b", `flag --scenario: "a/b" is not a scenario name (F1–F5, or a plugin fault name of letters, digits, _ . -)`, []string{"--plugin", "p.wasm"}},
	{"scenario chaos", "scenario", "chaos", "flag --scenario: chaos is a mode: use --mode chaos", []string{"--plugin", "p.wasm"}},
	{"mode unknown", "mode", "fast", `flag --mode: "fast" is not a mode (deterministic or chaos)`, nil},
	{"audit-tools yes", "audit-tools", "yes", `flag --audit-tools: "yes" is not on or off`, nil},
	{"on-cancel later", "on-cancel", "later", `flag --on-cancel: "later" is not forward or swallow`, nil},
	{"upstream-args empty element", "upstream-args", "a,,b", `flag --upstream-args: empty element in "a,,b"`, nil},
	{"upstream-args trailing comma", "upstream-args", "a,", `flag --upstream-args: empty element in "a,"`, nil},
	{"upstream-env not KEY=VALUE", "upstream-env", "A=1,B", `flag --upstream-env: "B" is not KEY=VALUE`, nil},
	{"upstream-env empty KEY", "upstream-env", "=1", `flag --upstream-env: "=1" has an empty KEY`, nil},
	{"upstream-env empty element", "upstream-env", "A=1,,B=2", `flag --upstream-env: empty element in "A=1,,B=2"`, nil},
	{"upstream-env KEY twice", "upstream-env", "A=1,A=2", `flag --upstream-env: KEY "A" given twice`, nil},
	{"upstream-env-var not KEY=VALUE", "upstream-env-var", "NOKEY", `flag --upstream-env-var: "NOKEY" is not KEY=VALUE`, nil},
	{"upstream-env-var empty KEY", "upstream-env-var", "=x", `flag --upstream-env-var: "=x" has an empty KEY`, nil},
	{"upstream-env-var KEY also in upstream-env", "upstream-env-var", "A=2", `flag --upstream-env-var: KEY "A" given twice`, []string{"--upstream-env", "A=1"}},
	{"write-tools empty element", "write-tools", "a_*,,b_*", `flag --write-tools: empty element in "a_*,,b_*"`, nil},
	{"write-tools blank element", "write-tools", "a_*, ", `flag --write-tools: empty element in "a_*, "`, nil},
	{"read-tools empty element", "read-tools", ",get_*", `flag --read-tools: empty element in ",get_*"`, nil},
	{"key-fields empty element", "key-fields", "k,", `flag --key-fields: empty element in "k,"`, nil},
	{"plugin-config without =", "plugin-config", "dates", `flag --plugin-config: "dates" is not NAME=JSON`, []string{"--plugin", "p.wasm"}},
	{"plugin-config bad name", "plugin-config", "a b={}", `flag --plugin-config: "a b={}" is not NAME=JSON`, []string{"--plugin", "p.wasm"}},
	{"plugin-config empty name", "plugin-config", "={}", `flag --plugin-config: "={}" is not NAME=JSON`, []string{"--plugin", "p.wasm"}},
	{"plugin-config invalid JSON", "plugin-config", "dates={", `flag --plugin-config: configuration of "dates" is not valid JSON`, []string{"--plugin", "p.wasm"}},
	{"plugin-config empty JSON", "plugin-config", "dates=", `flag --plugin-config: configuration of "dates" is not valid JSON`, []string{"--plugin", "p.wasm"}},
	{"plugin-config name twice", "plugin-config", "dates={}", `flag --plugin-config: "dates" given twice`, []string{"--plugin", "p.wasm", "--plugin-config", "dates=1"}},
	{"plugin twice", "plugin", "p.wasm", `flag --plugin: "p.wasm" given twice`, []string{"--plugin", "p.wasm"}},
	{"plugin-timeout zero", "plugin-timeout", "0s", "flag --plugin-timeout: 0s is out of range (1ms–60s)", []string{"--plugin", "p.wasm"}},
	{"plugin-timeout above max", "plugin-timeout", "61s", "flag --plugin-timeout: 61s is out of range (1ms–60s)", []string{"--plugin", "p.wasm"}},
	{"plugin-timeout without unit", "plugin-timeout", "100", `flag --plugin-timeout: "100" is not a duration (e.g. 100ms, 2s)`, []string{"--plugin", "p.wasm"}},
	{"plugin-memory zero", "plugin-memory", "0", "flag --plugin-memory: 0 is out of range (1–4096 MiB)", []string{"--plugin", "p.wasm"}},
	{"plugin-memory above max", "plugin-memory", "4097", "flag --plugin-memory: 4097 is out of range (1–4096 MiB)", []string{"--plugin", "p.wasm"}},
	{"plugin-memory with unit", "plugin-memory", "128MiB", `flag --plugin-memory: "128MiB" is not a whole number of MiB`, []string{"--plugin", "p.wasm"}},
	{"plugin-start-timeout zero", "plugin-start-timeout", "0s", "flag --plugin-start-timeout: 0s is out of range (1ms–10m)", []string{"--plugin", "p.wasm"}},
	{"plugin-start-timeout above max", "plugin-start-timeout", "11m", "flag --plugin-start-timeout: 11m is out of range (1ms–10m)", []string{"--plugin", "p.wasm"}},
	{"plugin-input-limit below min", "plugin-input-limit", "1023", "flag --plugin-input-limit: 1023 is out of range (1024–268435456 bytes)", []string{"--plugin", "p.wasm"}},
	{"plugin-input-limit above max", "plugin-input-limit", "268435457", "flag --plugin-input-limit: 268435457 is out of range (1024–268435456 bytes)", []string{"--plugin", "p.wasm"}},
	{"plugin-input-limit with unit", "plugin-input-limit", "1MiB", `flag --plugin-input-limit: "1MiB" is not a whole number of bytes`, []string{"--plugin", "p.wasm"}},
	{"plugin-output-limit below min", "plugin-output-limit", "0", "flag --plugin-output-limit: 0 is out of range (1024–268435456 bytes)", []string{"--plugin", "p.wasm"}},
	{"plugin-output-limit overflow", "plugin-output-limit", "99999999999999999999", "flag --plugin-output-limit: 99999999999999999999 is out of range (1024–268435456 bytes)", []string{"--plugin", "p.wasm"}},
	{"plugin-log-limit zero", "plugin-log-limit", "0", "flag --plugin-log-limit: 0 is out of range (1–67108864 bytes)", []string{"--plugin", "p.wasm"}},
	{"plugin-recycle-calls zero", "plugin-recycle-calls", "0", "flag --plugin-recycle-calls: 0 is out of range (1–1000000000 calls)", []string{"--plugin", "p.wasm"}},
	{"plugin-recycle-calls negative", "plugin-recycle-calls", "-5", "flag --plugin-recycle-calls: -5 is out of range (1–1000000000 calls)", []string{"--plugin", "p.wasm"}},
	{"plugin-recycle-memory above max", "plugin-recycle-memory", "4097", "flag --plugin-recycle-memory: 4097 is out of range (1–4096 MiB)", []string{"--plugin", "p.wasm"}},
	{"plugin-max-failures zero", "plugin-max-failures", "0", "flag --plugin-max-failures: 0 is out of range (1–1000000 failures)", []string{"--plugin", "p.wasm"}},
	{"plugin-pool-size above max", "plugin-pool-size", "65", "flag --plugin-pool-size: 65 is out of range (1–64 instances)", []string{"--plugin", "p.wasm"}},
	{"plugin-max-instances zero", "plugin-max-instances", "0", "flag --plugin-max-instances: 0 is out of range (1–64 instances)", []string{"--plugin", "p.wasm"}},
	{"plugin-max-delay above max", "plugin-max-delay", "25h", "flag --plugin-max-delay: 25h is out of range (1ms–24h)", []string{"--plugin", "p.wasm"}},
	{"plugin-max-delay without unit", "plugin-max-delay", "5", `flag --plugin-max-delay: "5" is not a duration (e.g. 100ms, 2s)`, []string{"--plugin", "p.wasm"}},
	{"upstream-timeout zero", "upstream-timeout", "0", "flag --upstream-timeout: 0 is out of range (1ms–10m)", nil},
	{"upstream-timeout above max", "upstream-timeout", "11m", "flag --upstream-timeout: 11m is out of range (1ms–10m)", nil},
	{"upstream-timeout negative", "upstream-timeout", "-1s", "flag --upstream-timeout: -1s is out of range (1ms–10m)", nil},
	{"NUL byte in a value", "report-file", "a\x00b", "flag --report-file: the value contains a NUL byte", nil},
	{"newline stays on one line", "mode", "a\nb", `flag --mode: "a\nb" is not a mode (deterministic or chaos)`, nil},
}

// combinationErrorCases are the flags that do not belong to the mode, and
// the required flag (behaviour §2.7), each in both syntaxes where it has a value.
var combinationErrorCases = []struct {
	name, flag, value, want string
	extra                   []string
}{
	{"error-rate without chaos", "error-rate", "0.5", "flag --error-rate: only with --mode chaos", nil},
	{"error-rate with deterministic mode", "error-rate", "0.5", "flag --error-rate: only with --mode chaos", []string{"--mode", "deterministic"}},
	{"seed without chaos", "seed", "7", "flag --seed: only with --mode chaos", nil},
	{"retry-after without scenario", "retry-after", "5", "flag --retry-after: only with --scenario F2", nil},
	{"retry-after with F1", "retry-after", "5", "flag --retry-after: only with --scenario F2", []string{"--scenario", "F1"}},
	{"retry-after with chaos", "retry-after", "5", "flag --retry-after: only with --scenario F2", []string{"--mode", "chaos"}},
	{"chaos with scenario", "mode", "chaos", "flag --scenario: not with --mode chaos (chaos replaces the scenarios)", []string{"--scenario", "F1"}},
	{"plugin-config without plugin", "plugin-config", "dates={}", "flag --plugin-config: only with --plugin", nil},
	{"plugin-timeout without plugin", "plugin-timeout", "1s", "flag --plugin-timeout: only with --plugin", nil},
	{"plugin-memory without plugin", "plugin-memory", "64", "flag --plugin-memory: only with --plugin", nil},
	{"plugin-cache-dir without plugin", "plugin-cache-dir", "/tmp/c", "flag --plugin-cache-dir: only with --plugin", nil},
	{"plugin-max-failures without plugin", "plugin-max-failures", "3", "flag --plugin-max-failures: only with --plugin", nil},
	{"plugin-max-delay without plugin", "plugin-max-delay", "1s", "flag --plugin-max-delay: only with --plugin", nil},
	{"plugin-recycle-memory above plugin-memory", "plugin-recycle-memory", "65", "flag --plugin-recycle-memory: 65 MiB is above --plugin-memory (64 MiB)",
		[]string{"--plugin", "p.wasm", "--plugin-memory", "64"}},
	{"plugin-recycle-memory above the default memory", "plugin-recycle-memory", "129", "flag --plugin-recycle-memory: 129 MiB is above --plugin-memory (128 MiB)",
		[]string{"--plugin", "p.wasm"}},
	{"plugin-pool-size above plugin-max-instances", "plugin-pool-size", "3", "flag --plugin-pool-size: 3 is above --plugin-max-instances (2)",
		[]string{"--plugin", "p.wasm", "--plugin-max-instances", "2"}},
	{"plugin-pool-size above the default max instances", "plugin-pool-size", "9", "flag --plugin-pool-size: 9 is above --plugin-max-instances (8)",
		[]string{"--plugin", "p.wasm"}},
}

func wantUsageError(t *testing.T, args []string, want string) {
	t.Helper()
	_, err := parseProxyFlags(args)
	var ue usageError
	if !errors.As(err, &ue) {
		t.Fatalf("parseProxyFlags(%q) error = %v (%T), want usageError %q", args, err, err, want)
	}
	if got := err.Error(); got != "agent-harness proxy: "+want {
		t.Errorf("parseProxyFlags(%q)\n got: %s\nwant: agent-harness proxy: %s", args, got, want)
	}
	if strings.ContainsAny(err.Error(), "\r\n") {
		t.Errorf("error is not one line: %q", err.Error())
	}
}

func TestParseProxyFlagsValueErrors(t *testing.T) {
	for _, tt := range append(valueErrorCases, combinationErrorCases...) {
		for syntax, flag := range both(tt.flag, tt.value) {
			t.Run(tt.name+"/"+syntax, func(t *testing.T) {
				wantUsageError(t, withBase(append(append([]string{}, tt.extra...), flag...)...), tt.want)
			})
		}
	}
}

func TestParseProxyFlagsSyntaxErrors(t *testing.T) {
	tests := []flagErrorCase{
		{"unknown flag", withBase("--bogus"), "unknown flag --bogus"},
		{"unknown flag with value", withBase("--bogus=1"), "unknown flag --bogus"},
		{"unknown flag is case-sensitive", withBase("--Scenario", "F1"), "unknown flag --Scenario (did you mean --scenario?)"},
		{"unknown flag close to a known one", withBase("--senario", "F1"), "unknown flag --senario (did you mean --scenario?)"},
		{"unknown flag with swapped letters", withBase("--reprot-file", "r.json"), "unknown flag --reprot-file (did you mean --report-file?)"},
		{"unknown flag with underscores", withBase("--audit_tools", "off"), "unknown flag --audit_tools (did you mean --audit-tools?)"},
		{"unknown flag that starts one flag", withBase("--redact"), "unknown flag --redact (did you mean --redact-arguments?)"},
		{"unknown flag that starts several flags", withBase("--upstream", "x"), "unknown flag --upstream"},
		{"unknown flag close to a switch", withBase("--quite"), "unknown flag --quite (did you mean --quiet?)"},
		{"unknown flag before a good one", withBase("--bogus", "--scenario", "F1"), "unknown flag --bogus"},
		{"three dashes", withBase("---scenario", "F1"), "unknown flag ---scenario (did you mean --scenario?)"},
		{"bare double dash with equals", withBase("--=x"), "unknown flag --"},
		{"single-dash flag", withBase("-x"), "unknown flag -x (flags start with --)"},
		{"Go-style single-dash flag", withBase("-scenario", "F1"), "unknown flag -scenario (flags start with --: did you mean --scenario?)"},
		{"unknown flag with odd characters is quoted", withBase("--a b\n"), `unknown flag "--a b\n"`},
		{"a word after the flags starts a command", withBase("server.js"), `flag --upstream-command: not together with a command after the flags (agent-harness proxy [flags] -- CMD [ARGS...])`},
		{"command after the flags and --upstream-arg", []string{"--upstream-arg", "x", "node"}, `flag --upstream-arg: not together with a command after the flags (agent-harness proxy [flags] -- CMD [ARGS...])`},
		{"NUL in a command after the flags", []string{"node", "a\x00b"}, `word 2 after the flags contains a NUL byte`},
		{"flag errors before a command still count", []string{"--bogus", "node"}, `unknown flag --bogus`},
		{"a value flag before a command still needs its value", []string{"--report-file", "--scenario", "F1", "node"}, "flag --report-file needs a value"},
		{"command after -- and --upstream-command", withBase("--", "server.js"), `flag --upstream-command: not together with a command after -- (agent-harness proxy [flags] -- CMD [ARGS...])`},
		{"command after -- and --upstream-arg", []string{"--upstream-arg", "x", "--", "node"}, `flag --upstream-arg: not together with a command after -- (agent-harness proxy [flags] -- CMD [ARGS...])`},
		{"command after -- and --upstream-args", []string{"--upstream-args", "x,y", "--", "node"}, `flag --upstream-args: not together with a command after -- (agent-harness proxy [flags] -- CMD [ARGS...])`},
		{"nothing after --", []string{"--scenario", "F1", "--"}, `no command after --: agent-harness proxy [flags] -- CMD [ARGS...]`},
		{"empty command after --", []string{"--", "", "x"}, `the command after -- is empty: agent-harness proxy [flags] -- CMD [ARGS...]`},
		{"NUL after --", []string{"--", "node", "a\x00b"}, `word 2 after -- contains a NUL byte`},
		{"flag errors before -- still count", []string{"--bogus", "--", "node"}, `unknown flag --bogus`},
		{"empty command after the flags", []string{"--scenario", "F1", "", "x"}, `the command after the flags is empty: agent-harness proxy [flags] -- CMD [ARGS...]`},
		{"quiet takes no value", withBase("--quiet=true"), "flag --quiet takes no value"},
		{"value starting with -- is not taken", withBase("--report-file", "--scenario", "F1"), "flag --report-file needs a value"},
		{"value -- is not taken", withBase("--upstream-arg", "--"), "flag --upstream-arg needs a value"},
		{"version takes no value", withBase("--version=1"), "flag --version takes no value"},
		{"help takes no value", withBase("--help=yes"), "flag --help takes no value"},
		{"redact-arguments takes no value", withBase("--redact-arguments=true"), "flag --redact-arguments takes no value"},
		{"redact-arguments does not take the next word", withBase("--redact-arguments", "yes"), "flag --upstream-command: not together with a command after the flags (agent-harness proxy [flags] -- CMD [ARGS...])"},
		{"redact-arguments given twice", withBase("--redact-arguments", "--redact-arguments"), "flag --redact-arguments given twice"},
		{"ignore-idempotent-hint takes no value", withBase("--ignore-idempotent-hint=false"), "flag --ignore-idempotent-hint takes no value"},
		{"ignore-idempotent-hint given twice", withBase("--ignore-idempotent-hint", "--ignore-idempotent-hint"), "flag --ignore-idempotent-hint given twice"},
		{"a switch takes no positional value", withBase("--ignore-idempotent-hint", "true"), "flag --upstream-command: not together with a command after the flags (agent-harness proxy [flags] -- CMD [ARGS...])"},
		{"idempotent-tools empty element", withBase("--idempotent-tools", "set_*,"), `flag --idempotent-tools: empty element in "set_*,"`},
		{"upstream-command required", []string{"--scenario", "F1"}, "flag --upstream-command is required (or give the command after --: agent-harness proxy [flags] -- CMD [ARGS...])"},
		{"upstream-command required with nothing", nil, "flag --upstream-command is required (or give the command after --: agent-harness proxy [flags] -- CMD [ARGS...])"},
		{"syntax errors come before value errors", withBase("--retry-after", "0", "--bogus"), "unknown flag --bogus"},
		{"value errors come in command-line order", withBase("--mode", "fast", "--audit-tools", "yes"), `flag --mode: "fast" is not a mode (deterministic or chaos)`},
	}
	for name := range valueFlags {
		args := withBase()
		if name == "upstream-command" {
			args = nil
		}
		tests = append(tests,
			flagErrorCase{"missing value at the end/" + name, append(append([]string{}, args...), "--"+name), "flag --" + name + " needs a value"},
			flagErrorCase{"missing value before a flag/" + name, append(append([]string{}, args...), "--"+name, "--mode", "chaos"), "flag --" + name + " needs a value"},
			flagErrorCase{"empty value/equal/" + name, append(append([]string{}, args...), "--"+name+"="), "flag --" + name + ": empty value"},
			flagErrorCase{"empty value/space/" + name, append(append([]string{}, args...), "--"+name, ""), "flag --" + name + ": empty value"},
		)
	}
	for _, name := range singleValueFlags {
		v := valueFlags[name]
		tests = append(tests,
			flagErrorCase{"given twice/space/" + name, withBase("--"+name, v, "--"+name, v), "flag --" + name + " given twice"},
			flagErrorCase{"given twice/equal/" + name, withBase("--"+name+"="+v, "--"+name+"="+v), "flag --" + name + " given twice"},
		)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantUsageError(t, tt.args, tt.want)
		})
	}
}

func TestParseProxyFlagsHelpAndVersion(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want error
	}{
		{"long help", []string{"--help"}, errHelp},
		{"short help", []string{"-h"}, errHelp},
		{"help wins over missing required flag", []string{"--scenario", "F9", "--help"}, errHelp},
		{"help wins over an unknown flag", []string{"--bogus", "--help"}, errHelp},
		{"help after a flag missing its value", []string{"--report-file", "--help"}, errHelp},
		{"version", []string{"--version"}, errVersion},
		{"help wins over version", []string{"--version", "--help"}, errHelp},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := parseProxyFlags(tt.args); err != tt.want {
				t.Errorf("parseProxyFlags(%q) = %v, want %v", tt.args, err, tt.want)
			}
		})
	}
	// -h and --help as values are not requests for help.
	for _, args := range [][]string{
		withBase("--upstream-arg", "-h"),
		withBase("--upstream-arg=--help"),
		withBase("--", "--help"),
	} {
		if _, err := parseProxyFlags(args); err == errHelp {
			t.Errorf("parseProxyFlags(%q) asked for help", args)
		}
	}
}

func TestProxyUsageListsEveryFlag(t *testing.T) {
	u := proxyUsage()
	proxyFlagSet(&proxyOptions{}, &parseState{}).fs.VisitAll(func(f *pflag.Flag) {
		if !strings.Contains(u, "--"+f.Name) {
			t.Errorf("usage does not list --%s", f.Name)
		}
		if f.DefValue != "" && !strings.Contains(u, "(default "+f.DefValue+")") {
			t.Errorf("usage does not show the default of --%s", f.Name)
		}
	})
}

func TestParseProxyFlagsDefaults(t *testing.T) {
	defer func(f func() (string, error)) { userCacheDir = f }(userCacheDir)
	userCacheDir = func() (string, error) { return "/home/u/.cache", nil }
	got, err := parseProxyFlags([]string{"--upstream-command", "node"})
	if err != nil {
		t.Fatal(err)
	}
	want := proxyOptions{
		upstreamOptions: upstreamOptions{UpstreamCommand: "node", UpstreamTimeout: 60 * time.Second},
		Chaos:           harness.Chaos{Mode: "deterministic", ErrorRate: 0.2},
		RetryAfter:      60,
		Classification:  harness.Classification{KeyFields: []string{"idempotency_key"}},
		AuditTools:      true,
		pluginOptions: pluginOptions{
			PluginConfig:    map[string]json.RawMessage{},
			PluginTimeout:   100 * time.Millisecond,
			PluginMemoryMiB: 128,
			PluginCacheDir:  "/home/u/.cache/agent-harness/wazero",
		},
		OnCancel: "forward",
		HTTP:     httpOptions{ListenPath: "/mcp", FaultLayer: "tool"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("defaults:\n got %+v\nwant %+v", got, want)
	}

	userCacheDir = func() (string, error) { return "", errors.New("no home") }
	got, err = parseProxyFlags([]string{"--upstream-command", "node"})
	if err != nil || got.PluginCacheDir != "" {
		t.Errorf("without a user cache dir: PluginCacheDir = %q, err %v; want \"\"", got.PluginCacheDir, err)
	}
}

func TestParseProxyFlagsValues(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		check func(o proxyOptions) any // returns the observed value
		want  any
	}{
		{"upstream-args before upstream-arg", withBase("--upstream-arg", "x,y", "--upstream-args", "a,b", "--upstream-arg=--stdio", "--upstream-args=c"),
			func(o proxyOptions) any { return o.UpstreamArgs }, []string{"a", "b", "c", "x,y", "--stdio"}},
		{"upstream-arg keeps spaces and single-dash values", withBase("--upstream-arg", " -y ", "--upstream-arg", "-"),
			func(o proxyOptions) any { return o.UpstreamArgs }, []string{" -y ", "-"}},
		{"no upstream args", withBase(), func(o proxyOptions) any { return len(o.UpstreamArgs) }, 0},
		{"upstream-env before upstream-env-var", withBase("--upstream-env-var", "C=x,y=z", "--upstream-env", "A=1,B=", "--upstream-env-var=D=--e"),
			func(o proxyOptions) any { return o.UpstreamEnv }, []string{"A=1", "B=", "C=x,y=z", "D=--e"}},
		{"upstream-cwd", withBase("--upstream-cwd", "/srv"), func(o proxyOptions) any { return o.UpstreamCwd }, "/srv"},
		{"scenario F1", withBase("--scenario", "F1"), func(o proxyOptions) any { return o.Scenario }, "F1"},
		{"scenario lower case normalised", withBase("--scenario=f5"), func(o proxyOptions) any { return o.Scenario }, "F5"},
		{"scenario plugin name with plugin", withBase("--plugin", "p.wasm", "--scenario", "slow_write.v2-x"),
			func(o proxyOptions) any { return o.Scenario }, "slow_write.v2-x"},
		{"scenario F2 with retry-after", withBase("--scenario", "F2", "--retry-after", "86400"),
			func(o proxyOptions) any { return o.RetryAfter }, 86400},
		{"scenario f2 with retry-after", withBase("--retry-after=1", "--scenario=f2"),
			func(o proxyOptions) any { return o.RetryAfter }, 1},
		{"mode chaos any case", withBase("--mode", "CHAOS"), func(o proxyOptions) any { return o.Mode }, "chaos"},
		{"mode deterministic with scenario", withBase("--mode", "deterministic", "--scenario", "F3"),
			func(o proxyOptions) any { return o.Mode + " " + o.Scenario }, "deterministic F3"},
		{"chaos error-rate and seed", withBase("--mode", "chaos", "--error-rate", "1", "--seed", "-9223372036854775808"),
			func(o proxyOptions) any { return fmt.Sprint(o.ErrorRate, o.Seed, o.SeedSet) }, "1 -9223372036854775808 true"},
		{"chaos error-rate zero", withBase("--mode", "chaos", "--error-rate=0", "--seed=0"),
			func(o proxyOptions) any { return fmt.Sprint(o.ErrorRate, o.Seed, o.SeedSet) }, "0 0 true"},
		{"chaos without seed", withBase("--mode", "chaos"),
			func(o proxyOptions) any { return fmt.Sprint(o.ErrorRate, o.SeedSet) }, "0.2 false"},
		{"write and read tools trimmed and repeatable", withBase("--write-tools", "book_*, pay_*", "--read-tools", "*", "--write-tools", "x"),
			func(o proxyOptions) any { return fmt.Sprint(o.WriteTools, o.ReadTools) }, "[book_* pay_* x] [*]"},
		{"idempotent-tools trimmed and repeatable", withBase("--idempotent-tools", "set_*, put_*", "--idempotent-tools=x"),
			func(o proxyOptions) any { return o.IdempotentTools }, []string{"set_*", "put_*", "x"}},
		{"ignore-idempotent-hint", withBase("--ignore-idempotent-hint", "--scenario", "F1"),
			func(o proxyOptions) any { return fmt.Sprint(o.IgnoreIdempotentHint, " ", o.Scenario) }, "true F1"},
		{"ignore-idempotent-hint last", withBase("--scenario", "F1", "--ignore-idempotent-hint"),
			func(o proxyOptions) any { return fmt.Sprint(o.IgnoreIdempotentHint, " ", o.Scenario) }, "true F1"},
		{"idempotent hint counts by default", withBase(), func(o proxyOptions) any { return o.IgnoreIdempotentHint }, false},
		{"key-fields replace the default", withBase("--key-fields", "request_id", "--key-fields", "Idem-Key"),
			func(o proxyOptions) any { return o.KeyFields }, []string{"request_id", "Idem-Key"}},
		{"audit-tools OFF", withBase("--audit-tools", "OFF"), func(o proxyOptions) any { return o.AuditTools }, false},
		{"audit-tools On", withBase("--audit-tools=On"), func(o proxyOptions) any { return o.AuditTools }, true},
		{"report-file value starting with -- via equals", withBase("--report-file=--x"), func(o proxyOptions) any { return o.ReportFile }, "--x"},
		{"redact-arguments off by default", withBase(), func(o proxyOptions) any { return o.RedactArguments }, false},
		{"redact-arguments before another flag", withBase("--redact-arguments", "--scenario", "F1"),
			func(o proxyOptions) any { return fmt.Sprint(o.RedactArguments, " ", o.Scenario) }, "true F1"},
		{"redact-arguments last", withBase("--scenario", "F1", "--redact-arguments"), func(o proxyOptions) any { return o.RedactArguments }, true},
		{"plugins in order with config", withBase("--plugin", "a.wasm", "--plugin=b.wasm", "--plugin-config", `dates={"formats":["a,b"]}`, "--plugin-config=x=1"),
			func(o proxyOptions) any {
				return fmt.Sprintf("%v %s %s", o.Plugins, o.PluginConfig["dates"], o.PluginConfig["x"])
			},
			`[a.wasm b.wasm] {"formats":["a,b"]} 1`},
		{"plugin limits", withBase("--plugin", "a.wasm", "--plugin-timeout", "60s", "--plugin-memory", "4096", "--plugin-cache-dir", "/c"),
			func(o proxyOptions) any {
				return fmt.Sprintf("%v %v %v", o.PluginTimeout, o.PluginMemoryMiB, o.PluginCacheDir)
			}, "1m0s 4096 /c"},
		{"every plugin limit", withBase("--plugin", "a.wasm", "--plugin-memory", "64", "--plugin-start-timeout", "10m",
			"--plugin-input-limit", "1024", "--plugin-output-limit=268435456", "--plugin-log-limit", "1",
			"--plugin-recycle-calls", "1000000000", "--plugin-recycle-memory", "64", "--plugin-max-failures", "1",
			"--plugin-pool-size", "64", "--plugin-max-instances", "64", "--plugin-max-delay", "24h"),
			func(o proxyOptions) any { return o.PluginLimits },
			pluginLimits{StartTimeout: 10 * time.Minute, InputLimit: 1024, OutputLimit: 256 << 20, LogLimit: 1,
				RecycleCalls: 1_000_000_000, RecycleMemoryMiB: 64, MaxFailures: 1, PoolSize: 64, MaxInstances: 64, MaxDelay: 24 * time.Hour}},
		{"plugin-pool-size up to the default max instances", withBase("--plugin", "a.wasm", "--plugin-pool-size", "8"),
			func(o proxyOptions) any { return o.PluginLimits.PoolSize }, 8},
		{"plugin-timeout lower bound", withBase("--plugin", "a.wasm", "--plugin-timeout=1ms"),
			func(o proxyOptions) any { return o.PluginTimeout }, time.Millisecond},
		{"upstream-timeout", withBase("--upstream-timeout", "10m"), func(o proxyOptions) any { return o.UpstreamTimeout }, 10 * time.Minute},
		{"on-cancel in any case", withBase("--on-cancel", "Swallow"), func(o proxyOptions) any { return o.OnCancel }, "swallow"},
		{"upstream-command may start with a single dash", []string{"--upstream-command", "-weird"}, func(o proxyOptions) any { return o.UpstreamCommand }, "-weird"},
		{"terminator with nothing after", withBase("--"), func(o proxyOptions) any { return o.UpstreamCommand }, "node"},
		{"command after --", []string{"--scenario", "F1", "--", "node", "dist/server.js", "--port", "3000", "-y", "--help", "--", "a,b"},
			func(o proxyOptions) any { return append([]string{o.UpstreamCommand, o.Scenario}, o.UpstreamArgs...) },
			[]string{"node", "F1", "dist/server.js", "--port", "3000", "-y", "--help", "--", "a,b"}},
		{"command after the flags", []string{"--scenario", "F1", "--quiet", "--report-file=r.json", "npx", "-y", "server", "--scenario", "F2", "--", "x"},
			func(o proxyOptions) any {
				return append([]string{o.UpstreamCommand, o.Scenario, fmt.Sprint(o.Quiet), o.ReportFile}, o.UpstreamArgs...)
			},
			[]string{"npx", "F1", "true", "r.json", "-y", "server", "--scenario", "F2", "--", "x"}},
		{"command right after proxy", []string{"node", "server.js", "--help"},
			func(o proxyOptions) any { return append([]string{o.UpstreamCommand}, o.UpstreamArgs...) },
			[]string{"node", "server.js", "--help"}},
		{"command after a value that looks like a command", []string{"--upstream-timeout", "10s", "--scenario", "F1", "node"},
			func(o proxyOptions) any {
				return fmt.Sprintf("%s %s %d", o.UpstreamCommand, o.Scenario, len(o.UpstreamArgs))
			}, "node F1 0"},
		{"command after -- alone", []string{"--", "npx"},
			func(o proxyOptions) any { return fmt.Sprintf("%s %d", o.UpstreamCommand, len(o.UpstreamArgs)) }, "npx 0"},
		{"quiet", withBase("--quiet"), func(o proxyOptions) any { return o.Quiet }, true},
		{"quiet before a value flag", withBase("--quiet", "--scenario", "F1"), func(o proxyOptions) any { return fmt.Sprintf("%v %s", o.Quiet, o.Scenario) }, "true F1"},
		{"not quiet by default", withBase(), func(o proxyOptions) any { return o.Quiet }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseProxyFlags(tt.args)
			if err != nil {
				t.Fatalf("parseProxyFlags(%q): %v", tt.args, err)
			}
			if got := tt.check(o); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func FuzzParseProxyFlags(f *testing.F) {
	for _, s := range []string{
		"--upstream-command\nnode\n--scenario\nF1",
		"--upstream-command=node\n--mode=chaos\n--error-rate=0.5\n--seed=-3",
		"--report-file\n--scenario\nF1",
		"--upstream-command\nnode\n--plugin\na.wasm\n--plugin-config\nx={}\n--scenario\nslow",
		"-h", "--", "--=", "---", "-", "--upstream-env\nA=1,A=2",
		"--quiet\n--\nnode\nserver.js", "--upstream-command\nnode server.js", "--\n\n", "--senario\nF1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Split(s, "\n")
		o, err := parseProxyFlags(args)
		switch {
		case err == nil:
			if o.UpstreamCommand == "" {
				t.Fatalf("accepted %q without an upstream command", args)
			}
		case err == errHelp, err == errVersion:
		default:
			var ue usageError
			if !errors.As(err, &ue) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			if !strings.HasPrefix(err.Error(), "agent-harness proxy: ") || strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("error is not one prefixed line: %q", err.Error())
			}
		}
	})
}

// TestUpstreamCommandWithSpaces: a whole command line given as one word is
// one error line that shows the -- form; an executable file whose path
// has spaces is fine.
func TestUpstreamCommandWithSpaces(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agent harness")
	spacedExecutable := filepath.Join(dir, "my server")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(spacedExecutable, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if o, err := parseProxyFlags([]string{"--upstream-command", spacedExecutable}); err != nil || o.UpstreamCommand != spacedExecutable {
		t.Errorf("executable file with spaces: %q, %v", o.UpstreamCommand, err)
	}
	wantUsageError(t, []string{"--upstream-command", "node dist/server.js", "--scenario", "F1"},
		`flag --upstream-command: "node dist/server.js" is not an executable file; to pass arguments write: agent-harness proxy [flags] -- node dist/server.js`)
	wantUsageError(t, []string{"--upstream-command=npx -y  @acme/mcp"},
		`flag --upstream-command: "npx -y  @acme/mcp" is not an executable file; to pass arguments write: agent-harness proxy [flags] -- npx -y @acme/mcp`)
	wantUsageError(t, []string{"--", "node dist/server.js"},
		`the command "node dist/server.js" after -- is not an executable file; give each argument as its own word: agent-harness proxy [flags] -- node dist/server.js`)
	// Relative to --upstream-cwd, as the upstream is started.
	if _, err := parseProxyFlags([]string{"--upstream-cwd", dir, "--upstream-command", "./my server"}); err != nil {
		t.Errorf("executable relative to --upstream-cwd: %v", err)
	}
	if err := os.Chmod(spacedExecutable, 0o644); err != nil {
		t.Fatal(err)
	}
	wantUsageError(t, []string{"--upstream-command", spacedExecutable},
		fmt.Sprintf(`flag --upstream-command: %q is not an executable file; to pass arguments write: agent-harness proxy [flags] -- %s`,
			spacedExecutable, strings.Join(strings.Fields(spacedExecutable), " ")))
}
