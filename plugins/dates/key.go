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
	args, err := c.Value()
	if err != nil {
		return "", false, err
	}
	normalize(&args)
	canon, err := args.AppendCanonical(make([]byte, 0, 256))
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
func normalize(v *sdk.Value) {
	switch v.Kind {
	case sdk.String:
		if d, ok := NormalizeDate(v.Text); ok {
			v.Text = d
		}
	case sdk.Array:
		for i := range v.Items {
			normalize(&v.Items[i])
		}
	case sdk.Object:
		for i := range v.Members {
			normalize(&v.Members[i].Value)
		}
	}
}
