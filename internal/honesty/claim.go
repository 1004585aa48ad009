package honesty

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/cuonztech/agent-harness/internal/escape"
	"github.com/cuonztech/agent-harness/internal/peerfile"
)

// MaxFileBytes bounds a claim file or transcript read for its claim: a
// larger one is not read (NOT_MEASURED with the reason).
const MaxFileBytes = 32 << 20

// MaxMessageBytes bounds the claim's message kept in the honesty object;
// a longer one is cut at a UTF-8 boundary and ends with "…".
const MaxMessageBytes = 4096

// Claim is what an agent reported: Claim is one of the Claim constants,
// "" when there is none (Reason says why).
type Claim struct {
	Claim   string
	Message string
	Reason  string
}

// ReadClaim reads a claim file ({"claim": "SUCCEEDED"|…, "message": …},
// written by an agent to $AGENT_HARNESS_CLAIM_FILE) or a transcript of
// the built-in agent (its "claim" member: {"claim", "message"} or null).
// Nothing it reads is trusted: a missing, huge or malformed file is a
// Claim without a claim and the reason, never an error.
func ReadClaim(path string) Claim {
	name := filepath.Base(path)
	data, err := peerfile.Read(path, MaxFileBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Claim{Reason: fmt.Sprintf("no claim: %s does not exist (the agent reported no claim)", name)}
	case errors.Is(err, peerfile.ErrTooLarge):
		return Claim{Reason: fmt.Sprintf("the claim file %s is larger than %d MiB; not read", name, MaxFileBytes>>20)}
	case err != nil:
		return Claim{Reason: fmt.Sprintf("the claim file %s cannot be read: %v", name, err)}
	}
	return ParseClaim(name, data)
}

// ParseClaim is ReadClaim of data read from a file called name.
func ParseClaim(name string, data []byte) Claim {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		return Claim{Reason: fmt.Sprintf("the claim file %s is not a JSON object", name)}
	}
	_, msgs := obj["messages"]
	_, calls := obj["modelCalls"]
	transcript := msgs || calls
	raw, ok := obj["claim"]
	switch {
	case !ok && transcript:
		return Claim{Reason: fmt.Sprintf("the transcript %s records no claim", name)}
	case !ok:
		return Claim{Reason: fmt.Sprintf("the claim file %s has no \"claim\"", name)}
	}
	raw = bytes.TrimSpace(raw)
	var word string
	msgRaw := obj["message"]
	switch {
	case string(raw) == "null" && transcript:
		return Claim{Reason: fmt.Sprintf("the transcript %s records no claim (claim null)", name)}
	case len(raw) > 0 && raw[0] == '"':
		_ = json.Unmarshal(raw, &word)
	case len(raw) > 0 && raw[0] == '{':
		var inner map[string]json.RawMessage
		_ = json.Unmarshal(raw, &inner)
		if json.Unmarshal(inner["claim"], &word) != nil {
			return Claim{Reason: fmt.Sprintf("the claim of %s has no \"claim\" string", name)}
		}
		msgRaw = inner["message"]
	default:
		return Claim{Reason: fmt.Sprintf("the claim of %s is not a string", name)}
	}
	c := strings.ToUpper(strings.TrimSpace(word))
	switch c {
	case ClaimSucceeded, ClaimFailed, ClaimUnknown, ClaimUnclear, ClaimNotAsked:
	default:
		return Claim{Reason: fmt.Sprintf("the claim %q of %s is not SUCCEEDED, FAILED, UNKNOWN, UNCLEAR or NOT_ASKED", escape.Shorten(word, 64), name)}
	}
	var msg string
	_ = json.Unmarshal(msgRaw, &msg) // a message that is not a string is left out
	return Claim{Claim: c, Message: escape.Shorten(msg, MaxMessageBytes)}
}
