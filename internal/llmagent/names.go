package llmagent

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
)

// validName is the tool-name rule of both providers (Chat Completions
// and Messages): ^[a-zA-Z0-9_-]{1,64}$.
var validName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// nameMap maps MCP tool names to names the provider accepts and back.
// A valid name stays as it is; another becomes its characters outside
// the rule replaced by _, cut to leave room for _ and 8 hex digits of its
// SHA-256, so two MCP names never share a model name.
type nameMap struct {
	toModel map[string]string
	toMCP   map[string]string
}

func newNameMap(mcpNames []string) nameMap {
	m := nameMap{toModel: map[string]string{}, toMCP: map[string]string{}}
	// Valid names first, so they keep their own spelling.
	for _, n := range mcpNames {
		if validName.MatchString(n) && m.toMCP[n] == "" {
			m.toModel[n], m.toMCP[n] = n, n
		}
	}
	for _, n := range mcpNames {
		if _, ok := m.toModel[n]; ok {
			continue
		}
		sum := sha256.Sum256([]byte(n))
		base := strings.Map(func(r rune) rune {
			if r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
				return r
			}
			return '_'
		}, n)
		if len(base) > 64-9 {
			base = base[:64-9]
		}
		name := base + "_" + hex.EncodeToString(sum[:4])
		for i := 2; m.toMCP[name] != ""; i++ {
			name = fmt.Sprintf("%s_%x%d", base[:max(0, len(base)-4)], sum[:1], i)
		}
		m.toModel[n], m.toMCP[name] = name, n
	}
	return m
}
