package httpagent

import (
	"strings"
	"testing"
)

func TestOriginAllowed(t *testing.T) {
	s := New(Options{AllowOrigins: []string{"https://App.example.com/"}})
	for origin, want := range map[string]bool{
		"":                           true,
		"http://localhost":           true,
		"http://localhost:3000":      true,
		"http://127.0.0.1:8080":      true,
		"http://[::1]:9":             true,
		"https://app.example.com":    true,
		"https://localhost:3000":     false, // only http:// loopback origins
		"http://localhost.evil.com":  false,
		"http://127.0.0.2:1":         false,
		"http://evil.example":        false,
		"null":                       false,
		"http://localhost:99999":     false,
		"http://user@localhost:1":    false,
		"http://localhost:1/path":    false,
		"https://app.example.com.ev": false,
	} {
		if got := s.originAllowed(origin); got != want {
			t.Errorf("originAllowed(%q) = %v, want %v", origin, got, want)
		}
	}
}

// FuzzOriginAllowed: never panics; an origin that is allowed is empty,
// the allowed one, or names a loopback host over http.
func FuzzOriginAllowed(f *testing.F) {
	for _, o := range []string{"", "http://localhost:1", "http://[::1]:2", "http://127.0.0.1", "https://x.example", "http://%zz", "http://[::1"} {
		f.Add(o)
	}
	s := New(Options{AllowOrigins: []string{"https://x.example"}})
	f.Fuzz(func(t *testing.T, origin string) {
		if !s.originAllowed(origin) || origin == "" || strings.EqualFold(strings.TrimRight(origin, "/"), "https://x.example") {
			return
		}
		if !strings.HasPrefix(origin, "http://") {
			t.Fatalf("allowed %q", origin)
		}
		host := strings.TrimPrefix(origin, "http://")
		if !strings.HasPrefix(host, "localhost") && !strings.HasPrefix(host, "127.0.0.1") && !strings.HasPrefix(host, "[::1]") {
			t.Fatalf("allowed %q", origin)
		}
	})
}
