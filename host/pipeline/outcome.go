package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cuonztech/agent-harness/builtin/classify"
	"github.com/cuonztech/agent-harness/builtin/judge"
	"github.com/cuonztech/agent-harness/host/relay"
)

// outcomeOf maps what forward returned to the attempt's outcome (SPEC §2.2)
// and a short detail for the report.
func outcomeOf(class classify.Class, resp relay.Response, err error) (judge.Outcome, string) {
	switch {
	case class == classify.Unknown:
		return judge.UnknownTool, ""
	case errors.Is(err, relay.ErrNoAnswer):
		return judge.Unknown, "no answer from the upstream within the call timeout"
	case errors.Is(err, relay.ErrUpstreamUnavailable):
		return judge.Unknown, "the upstream is not running"
	case err != nil:
		return judge.Unknown, "no answer from the upstream: " + err.Error()
	case resp.Error != nil:
		return judge.Unknown, fmt.Sprintf("the upstream answered JSON-RPC error %d", resp.Error.Code)
	}
	isErr, ok := isErrorResult(resp.Result)
	switch {
	case !ok:
		// Not a CallToolResult: whether it executed cannot be told.
		return judge.Unknown, "the upstream's result is not a JSON object"
	case isErr:
		return judge.UpstreamRejected, ""
	}
	return judge.Executed, ""
}

// digest identifies the upstream's result bytes, so the judge can tell
// whether two executions got byte-identical answers.
func digest(result json.RawMessage) string {
	sum := sha256.Sum256(result)
	return hex.EncodeToString(sum[:])
}
