package llmagent

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// Spec is a parsed --model PROVIDER:MODEL.
type Spec struct {
	Provider string // openai, anthropic, ollama, script
	Model    string
}

// OllamaBaseURL is where ollama:MODEL is served (Chat Completions).
const OllamaBaseURL = "http://localhost:11434/v1"

// ParseSpec reads PROVIDER:MODEL; the model may contain colons
// (ollama:qwen3:14b).
func ParseSpec(s string) (Spec, error) {
	p, m, ok := strings.Cut(s, ":")
	if !ok || m == "" {
		return Spec{}, fmt.Errorf("%q is not PROVIDER:MODEL (openai:, anthropic:, ollama: or script:)", s)
	}
	switch p {
	case "openai", "anthropic", "ollama":
	case "script":
		if _, err := NewScript(m); err != nil {
			return Spec{}, err
		}
	default:
		return Spec{}, fmt.Errorf("provider %q is not openai, anthropic, ollama or script", p)
	}
	return Spec{Provider: p, Model: m}, nil
}

// DefaultBaseURL is the provider's server when --base-url is not given.
func (s Spec) DefaultBaseURL() string {
	switch s.Provider {
	case "openai":
		return OpenAIBaseURL
	case "anthropic":
		return AnthropicBaseURL
	case "ollama":
		return OllamaBaseURL
	}
	return ""
}

// DefaultKeyEnv is the environment variable of the provider's key.
func (s Spec) DefaultKeyEnv() string {
	switch s.Provider {
	case "openai":
		return "OPENAI_API_KEY"
	case "anthropic":
		return "ANTHROPIC_API_KEY"
	}
	return ""
}

// Loopback reports whether a base URL names this machine (localhost,
// 127.0.0.0/8, ::1): a local server, which needs no key.
func Loopback(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
