package reportfile

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestWriteParts(t *testing.T) {
	tests := []struct {
		name  string
		parts []string
		want  string
	}{
		{"no parts", nil, ""},
		{"one part", []string{`{"a":1}`}, `{"a":1}`},
		{"several parts with empty ones", []string{`{"ops":[`, "", `{"id":"op-1"}`, `,{"id":"op-2"}`, "", `]}`}, `{"ops":[{"id":"op-1"},{"id":"op-2"}]}`},
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "report.json")
	w := newWriter(t, target)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var parts [][]byte
			for _, p := range tt.parts {
				parts = append(parts, []byte(p))
			}
			if err := w.WriteParts(parts); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, target); got != tt.want {
				t.Errorf("file = %q, want %q", got, tt.want)
			}
			if got := entries(t, dir); !slices.Equal(got, []string{"report.json"}) {
				t.Errorf("directory holds %v, want only report.json", got)
			}
		})
	}
}
