// Package mcpschema validates JSON against the MCP schemas the
// specification repository publishes, one per protocol revision, vendored
// under testdata/mcp-schema (SOURCE.md there names their commit). It is
// for tests: the ones that walk every result the proxy makes itself
// (behaviour §3.3) and check it against the revision of the call.
//
// The schemas are checked with internal/jsonschema, which handles every
// keyword they use for results except "format" ("byte" on base64 data),
// an annotation in draft-07 and draft 2020-12 alike; it is dropped before
// validating, so base64 is not checked here (fault.Deliver checks it).
package mcpschema

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/cuonztech/agent-harness/internal/jsonschema"
)

// Revisions are the revisions vendored, oldest first. Each behaves
// differently for a result the proxy makes: audio content from
// 2025-03-26, structuredContent and resource_link from 2025-06-18,
// resultType required from 2026-07-28.
var Revisions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

type loaded struct {
	v    *jsonschema.Validator
	defs string // "#/definitions/" (draft-07) or "#/$defs/" (2020-12)
	err  error
}

var (
	mu    sync.Mutex
	cache = map[string]*loaded{}
)

// Dir is the directory of the vendored schemas.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "mcp-schema")
}

func load(rev string) *loaded {
	mu.Lock()
	defer mu.Unlock()
	if l, ok := cache[rev]; ok {
		return l
	}
	l := &loaded{}
	cache[rev] = l
	data, err := os.ReadFile(filepath.Join(Dir(), rev, "schema.json"))
	if err != nil {
		l.err = fmt.Errorf("reading the schema of revision %s: %w", rev, err)
		return l
	}
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		l.err = fmt.Errorf("parsing the schema of revision %s: %w", rev, err)
		return l
	}
	l.defs = "#/$defs/"
	if _, ok := root["$defs"]; !ok {
		l.defs = "#/definitions/"
	}
	dropFormat(root)
	stripped, err := json.Marshal(root)
	if err != nil {
		l.err = err
		return l
	}
	l.v, l.err = jsonschema.New(stripped)
	return l
}

// dropFormat removes the "format" keyword from every subschema (never a
// property named format: the names under "properties" are kept).
func dropFormat(node any) {
	switch n := node.(type) {
	case map[string]any:
		for k, v := range n {
			switch {
			case k == "properties":
				if props, ok := v.(map[string]any); ok {
					for _, p := range props {
						dropFormat(p)
					}
				}
			case k == "format":
				if _, ok := v.(string); ok {
					delete(n, k)
				}
			default:
				dropFormat(v)
			}
		}
	case []any:
		for _, v := range n {
			dropFormat(v)
		}
	}
}

// Check validates doc against the definition def (such as
// "CallToolResult") of revision rev's schema and returns every violation;
// none when doc is valid. A schema that cannot be loaded or a definition
// it lacks is one violation.
func Check(rev, def string, doc []byte) []string {
	l := load(rev)
	if l.err != nil {
		return []string{l.err.Error()}
	}
	return l.v.ValidateRef(l.defs+def, doc)
}
