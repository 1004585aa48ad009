package canon

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// Op is the identity of one write call (behaviour §4.1).
type Op struct {
	// Key is the operation key: hex SHA-256 of tool + "\x00" + Canonical.
	Key string
	// Canonical is the canonical JSON of the arguments without key fields.
	Canonical []byte
	// Keys are the values of the key fields, in name order: strings
	// unquoted, other values as canonical JSON. Nil when there were none.
	Keys []string
	// CaseClash, when not empty, holds two member names of one object of
	// the arguments (key fields left out) that differ only in letter case
	// (equal under Unicode simple case folding, strings.EqualFold, but not
	// byte-identical), such as "room" and "Room". Canonical keeps both,
	// but an upstream decoding with Go's encoding/json matches member
	// names case-insensitively (the last wins), so the two calls
	// {"room":"1","Room":"12"} and {"room":"2","Room":"12"} may execute
	// the same thing: the operation's identity is not certain.
	CaseClash [2]string
}

// Operation strips the top-level key fields from args and returns the
// operation identity of the call. args is normally an object; empty (absent)
// args and null are the empty object {}. Any other JSON value (array,
// string, ...) is an argument value without key fields.
//
// # Errors
//
// A *SyntaxError (wrapped) when args is not valid JSON.
func Operation(tool string, args []byte, kf KeyFields) (op Op, err error) {
	d := getDoc()
	defer putDoc(d)
	buf := make([]byte, 0, len(tool)+1+len(args))
	buf = append(buf, tool...)
	buf = append(buf, 0)
	pre := len(buf)
	if len(trimWS(args)) == 0 {
		buf = append(buf, '{', '}')
	} else {
		if err := d.parse(args); err != nil {
			return Op{}, fmt.Errorf("canonicalising arguments of %q: %w", tool, err)
		}
		d.findClash = true
		switch d.nodes[0].kind {
		case Null:
			buf = append(buf, '{', '}')
		case Object:
			var keyNodes []int
			buf = d.appendCanonical(buf, 0, func(k int) bool {
				if !kf.matchBytes(d.Str(k)) {
					return false
				}
				keyNodes = append(keyNodes, k)
				return true
			})
			// After writing: AppendCanonical reuses the Doc's scratch.
			d.findClash = false // key values are not the operation
			for _, k := range keyNodes {
				if d.nodes[k+1].kind == String {
					op.Keys = append(op.Keys, string(d.Str(k+1)))
				} else {
					op.Keys = append(op.Keys, string(d.AppendCanonical(nil, k+1)))
				}
			}
		default:
			buf = d.AppendCanonical(buf, 0)
		}
	}
	if d.clashFound {
		op.CaseClash = [2]string{string(d.Str(int(d.clash[0]))), string(d.Str(int(d.clash[1])))}
	}
	sum := sha256.Sum256(buf)
	op.Key = hex.EncodeToString(sum[:])
	op.Canonical = buf[pre:len(buf):len(buf)]
	return op, nil
}

func trimWS(b []byte) []byte {
	i := skipWS(b, 0)
	b = b[i:]
	for len(b) > 0 {
		switch b[len(b)-1] {
		case ' ', '\t', '\n', '\r':
			b = b[:len(b)-1]
		default:
			return b
		}
	}
	return b
}
