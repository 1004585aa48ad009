package relay

import "sync"

// holdBack writes the upstream's messages to the agent, except while the
// agent's handshake is being answered: messages that arrive between the
// upstream's initialize result and the proxy's answer (after the tool
// listing) are held back and written after that answer, in order.
type holdBack struct {
	w       *lineWriter
	mu      sync.Mutex
	holding bool
	held    []message
}

// write forwards one message to the agent, or holds it back.
func (h *holdBack) write(m message) {
	h.mu.Lock()
	if h.holding {
		h.held = append(h.held, m)
		h.mu.Unlock()
		return
	}
	h.mu.Unlock()
	_ = h.w.writeMsg(m)
}

// start holds back every later message until release.
func (h *holdBack) start() {
	h.mu.Lock()
	h.holding = true
	h.mu.Unlock()
}

// release writes first (the handshake answer; none when its line is nil),
// then every held message, in order, and stops holding.
func (h *holdBack) release(first message) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if first.line != nil {
		_ = h.w.writeMsg(first)
	}
	for _, m := range h.held {
		_ = h.w.writeMsg(m)
	}
	h.held = nil
	h.holding = false
}
