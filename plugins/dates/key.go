package main

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/cuonztech/agent-harness/sdk"
)

// Key is the equiv_key hook: the key is a SHA-256 over the tool name and
// the canonical JSON of the arguments with key fields removed and every
// date string normalised. It always has an opinion, so every call of a
// session gets a key from the same function.
func Key(c sdk.Call) (string, bool, error) {
	args, err := c.Args()
	if err != nil {
		return "", false, err
	}
	canon, err := sdk.Canonical(normalize(args))
	if err != nil {
		return "", false, err
	}
	h := sha256.New()
	h.Write([]byte("dates/v1\x00"))
	h.Write([]byte(c.Tool))
	h.Write([]byte{0})
	h.Write(canon)
	return hex.EncodeToString(h.Sum(nil)), true, nil
}

// normalize rewrites date strings at any depth; object names, numbers and
// other values stay as they are.
func normalize(v any) any {
	switch v := v.(type) {
	case string:
		if d, ok := NormalizeDate(v); ok {
			return d
		}
	case []any:
		for i := range v {
			v[i] = normalize(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = normalize(v[k])
		}
	}
	return v
}
