package plugin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/sdk/abi"
)

// ABIVersion is the plugin ABI major version this host implements.
const ABIVersion = abi.Version

// Hook names as they appear in a manifest's "hooks".
const (
	HookClassify  = abi.HookClassify
	HookEquivKey  = abi.HookEquivKey
	HookEquivSame = abi.HookEquivSame
	HookFault     = abi.HookFault
)

// hookExports maps hook names to the export implementing them.
var hookExports = map[string]string{
	HookClassify:  abi.ExportClassify,
	HookEquivKey:  abi.ExportEquivKey,
	HookEquivSame: abi.ExportEquivSame,
	HookFault:     abi.ExportFault,
}

// Manifest is what a plugin declares about itself through ah_manifest.
type Manifest struct {
	ABI     int      `json:"abi"`
	Name    string   `json:"name"`
	Version string   `json:"version"`
	Hooks   []string `json:"hooks"`
	Faults  []string `json:"faults,omitempty"`
}

// Has reports whether the manifest declares hook.
func (m Manifest) Has(hook string) bool { return slices.Contains(m.Hooks, hook) }

// parseManifest decodes and validates ah_manifest's output.
func parseManifest(out []byte) (Manifest, error) {
	var m Manifest
	if len(out) == 0 {
		return m, fmt.Errorf("%w: ah_manifest returned nothing", ErrManifest)
	}
	if msg, ok := guestError(out); ok {
		return m, fmt.Errorf("%w: ah_manifest: %s", ErrManifest, msg)
	}
	var raw struct {
		ABI *int `json:"abi"`
	}
	if err := json.Unmarshal(out, &raw); err != nil {
		return m, fmt.Errorf("%w: %v", ErrManifest, err)
	}
	if raw.ABI == nil {
		return m, fmt.Errorf("%w: field \"abi\" missing", ErrManifest)
	}
	if *raw.ABI != ABIVersion {
		return m, fmt.Errorf("%w %d (want %d)", ErrABIVersion, *raw.ABI, ABIVersion)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	if err := dec.Decode(&m); err != nil {
		return m, fmt.Errorf("%w: %v", ErrManifest, err)
	}
	if err := m.validate(); err != nil {
		return m, fmt.Errorf("%w: %v", ErrManifest, err)
	}
	return m, nil
}

func (m Manifest) validate() error {
	if !validName(m.Name, 64) {
		return fmt.Errorf("name %q must be 1–64 characters a-z, 0-9, '_' or '-', starting with a letter or digit", m.Name)
	}
	if m.Version == "" || len(m.Version) > 64 || strings.ContainsFunc(m.Version, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return fmt.Errorf("version %q must be 1–64 printable characters", m.Version)
	}
	if len(m.Hooks) == 0 {
		return fmt.Errorf("no hooks declared")
	}
	seen := map[string]bool{}
	for _, h := range m.Hooks {
		if _, ok := hookExports[h]; !ok {
			return fmt.Errorf("unknown hook %q (this host knows classify, equiv_key, equiv_same, fault)", h)
		}
		if seen[h] {
			return fmt.Errorf("hook %q declared twice", h)
		}
		seen[h] = true
	}
	if seen[HookFault] != (len(m.Faults) > 0) {
		return fmt.Errorf("the fault hook and a non-empty \"faults\" list go together")
	}
	seen = map[string]bool{}
	for _, f := range m.Faults {
		if !validName(f, 64) {
			return fmt.Errorf("fault name %q must be 1–64 characters a-z, 0-9, '_' or '-'", f)
		}
		if _, builtin := fault.Lookup(f); builtin {
			return fmt.Errorf("fault name %q is a built-in scenario", f)
		}
		if seen[f] {
			return fmt.Errorf("fault %q declared twice", f)
		}
		seen[f] = true
	}
	return nil
}

func validName(s string, max int) bool {
	if s == "" || len(s) > max || s[0] == '-' || s[0] == '_' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// guestError reports whether out is an {"error": "..."} answer and returns
// the message.
func guestError(out []byte) (string, bool) {
	if !bytes.Contains(out, []byte(`"error"`)) {
		return "", false
	}
	var e struct {
		Error *string `json:"error"`
	}
	if json.Unmarshal(out, &e) != nil || e.Error == nil {
		return "", false
	}
	return *e.Error, true
}
