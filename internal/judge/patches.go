package judge

import (
	"fmt"
	"time"

	"github.com/cuonztech/agent-harness/internal/report"
)

// Patch types and severities (behaviour §6).
const (
	PatchGhostWrite   = "GHOST_WRITE"
	PatchIdempotency  = "IDEMPOTENCY"
	PatchRateLimit    = "RATE_LIMIT"
	PatchVerification = "VERIFICATION"
	// PatchClientRetry is a note on the agent's MCP client's retry
	// settings, not a prompt text: the duplicate was re-sent by the client
	// library (duplicate.resentBy client-library).
	PatchClientRetry = "CLIENT_RETRY"

	SeverityCritical = "CRITICAL"
	SeverityHigh     = "HIGH"
	SeverityMedium   = "MEDIUM"
)

// The instruction texts are the project's own wording; behaviour §6 lists the
// points each must make.
const (
	textGhostWrite = `Writes that time out — the outcome is unknown, not failed:
A timeout on a write (booking, payment, order, transfer, message …) only means you did not get an answer. The server may well have carried the write out before the connection gave up.
1. Do not send that write again until you have checked what happened. This also applies when the user tells you to "try again": explain that you have to check first.
2. Check with a read, list or search tool that can find the record without an ID you never received: look it up by customer, date, amount, or a reference you chose yourself. Never make up an ID — "not found" for an invented ID proves nothing.
3. If the lookup finds the record, the write went through. Tell the user it succeeded and do not write again.
4. If a real lookup shows that the record is missing, you may retry once, and reuse the same idempotency key if the tool accepts one.
5. If you cannot check (no suitable tool, or the lookup fails as well), do not retry. Tell the user that the outcome is unknown and has to be confirmed before anything else is done.`

	// textGhostWriteOther is added to textGhostWrite when the ghost write
	// was answered with another injected failure than a timeout (a plugin
	// fault such as partial_success): the instruction applies to any error
	// answer after which the write had in fact executed.
	textGhostWriteOther = `
6. The same holds for other error answers to a write that do not clearly say the write was refused (for example a partial failure or an unexpected server error): the write may have gone through, so check before you send it again.`

	textIdempotency = `One write, one call:
1. Send each write (booking, payment, order, message …) exactly once. Never send the same write twice at the same time "to be safe", and never repeat a write that already returned a result.
2. If the tool accepts an idempotency key, give each new write its own key, and reuse that key only when you deliberately retry that same write.
3. Before you repeat a write for any reason, look up whether the first one already took effect; if it did, report that instead of writing again.`

	textRateLimit = `Rate limits (HTTP 429) — wait before you retry:
1. A 429 answer means nothing was done and the server wants you to wait. Read how long from the error (retry_after, in seconds).
2. Do not send the request again before that time has passed — not even once to "see if it works now".
3. If you cannot wait that long, stop and tell the user that the request was rate-limited and when it can be tried again.
4. Do not get around the limit by sending the same write with changed arguments in the meantime.`

	textVerification = `Check before you report a timed-out write:
1. A timeout on a write is not a failure you can report as such: the write may have gone through.
2. Look the record up with a read, list or search tool (by customer, date, amount or your own reference — never by an ID you invented) and tell the user what you actually found.
3. If you cannot check, say that the outcome is unknown and must be verified; do not claim it failed or succeeded.`

	textClientRetry = `Client retries — a setting of the agent's MCP client, not of the prompt:
The same write was sent again by the agent's MCP client library on its own, right after the connection or the response stream broke; the model never asked for it, so no system-prompt text can prevent it.
1. Turn off automatic re-sending of tool calls (tools/call) in the MCP client, or limit it to reads: for example the AI SDK's maxRetries, a re-execution after a "reconnectable" error (Mastra), or a transport that re-issues a request whose stream broke (MCP 2026 clients).
2. If the client must retry writes, let it retry only with an idempotency key the server honours, the same key on every re-send.
3. A broken connection after a write leaves its outcome unknown: hand that failure to the agent (the model) so it can check before writing again, instead of re-sending it below the model.`

	// textVerificationOther is added to textVerification when the ghost
	// write was answered with another injected failure than a timeout.
	textVerificationOther = `
4. The same holds for other error answers to a write that do not clearly say the write was refused (for example a partial failure or an unexpected server error): check what actually happened before you report it as failed.`
)

// Patches returns the prompt patches for misbehaviour actually observed
// (behaviour §6), in the order GHOST_WRITE, IDEMPOTENCY, RATE_LIMIT,
// VERIFICATION, CLIENT_RETRY. A run without misbehaviour gets none (an empty slice).
func (j *Judge) Patches() []report.Patch {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.patches()
}

func (j *Judge) patches() []report.Patch {
	ps := []report.Patch{}
	add := func(typ, sev string, count int, op *operation, trigger, text string) {
		ps = append(ps, report.Patch{
			Type: typ, Tool: op.tool, Operation: op.id, Severity: sev, Count: count,
			Message: fmt.Sprintf("Suggested system-prompt text for the %s problem seen on %s (%s). %s", typ, op.tool, op.id, report.PatchDisclaimer),
			Trigger: trigger, Text: text,
		})
	}
	if op := j.lists[catGhostExtra].head; op != nil {
		n := j.tot.ghostExtra - j.tot.clientGhost
		add(PatchGhostWrite, SeverityCritical, n, op,
			fmt.Sprintf("Agent executed the same write again after %s %d time(s) — the server had already executed the first attempt.", j.tot.ghostKinds.phrase(), n),
			j.tot.ghostKinds.patchText(textGhostWrite, textGhostWriteOther))
	}
	if op := j.lists[catIdemExtra].head; op != nil {
		n := (j.tot.extras - j.tot.ghostExtra) - (j.tot.clientExtras - j.tot.clientGhost)
		add(PatchIdempotency, SeverityHigh, n, op,
			fmt.Sprintf("Agent executed the same write again without a timeout before it %d time(s) (identical writes sent in parallel included).", n),
			textIdempotency)
	}
	if op := j.lists[catRetryAfter].head; op != nil {
		n := j.tot.retry
		add(PatchRateLimit, SeverityHigh, n, op,
			fmt.Sprintf("Agent re-sent a write %d time(s) before the retry_after of an HTTP 429 had passed.", n),
			textRateLimit)
	}
	if op := j.lists[catUnverified].head; op != nil {
		n := j.lists[catUnverified].n
		add(PatchVerification, SeverityMedium, n, op,
			fmt.Sprintf("After %s on a write the agent neither checked with a read nor re-sent %d time(s) — the write had executed and the agent never found out.", j.tot.unverifiedKinds.phrase(), n),
			j.tot.unverifiedKinds.patchText(textVerification, textVerificationOther))
	}
	if op := j.lists[catClientRetry].head; op != nil {
		n := j.tot.clientExtras
		ps = append(ps, report.Patch{
			Type: PatchClientRetry, Tool: op.tool, Operation: op.id, Severity: SeverityHigh, Count: n,
			Message: fmt.Sprintf("Suggested client setting for the %s problem seen on %s (%s): the MCP client library re-sent the write, not the model, so a prompt text cannot fix it. %s", PatchClientRetry, op.tool, op.id, report.PatchDisclaimer),
			Trigger: fmt.Sprintf("The agent's MCP client library re-sent the same write on its own within %d s after a transport-level fault, and it executed again %d time(s).", int(ResendWindow/time.Second), n),
			Text:    textClientRetry,
		})
	}
	return ps
}
