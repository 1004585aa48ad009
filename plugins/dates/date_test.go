package main

import (
	"testing"
	"time"
)

func TestNormalizeDate(t *testing.T) {
	tests := []struct {
		name, in, want string
		ok             bool
	}{
		{"iso", "2026-11-03", "2026-11-03", true},
		{"slashes", "2026/11/03", "2026-11-03", true},
		{"day first dots", "03.11.2026", "2026-11-03", true},
		{"day first dots unpadded", "3.11.2026", "2026-11-03", true},
		{"day first dots unpadded month", "3.1.2026", "2026-01-03", true},
		{"compact", "20261103", "2026-11-03", true},
		{"midnight", "2026-11-03T00:00:00", "2026-11-03", true},
		{"midnight Z", "2026-11-03T00:00:00Z", "2026-11-03", true},
		{"midnight millis Z", "2026-11-03T00:00:00.000Z", "2026-11-03", true},
		{"midnight +00:00", "2026-11-03T00:00:00+00:00", "2026-11-03", true},
		{"leap day", "2028-02-29", "2028-02-29", true},
		{"not a leap year", "2026-02-29", "", false},
		{"century not leap", "1900-02-29", "", false},
		{"month 13", "2026-13-01", "", false},
		{"day 31 in november", "31.11.2026", "", false},
		{"mixed separators", "2026-11/03", "", false},
		{"not midnight", "2026-11-03T10:00:00Z", "", false},
		{"midnight other offset", "2026-11-03T00:00:00+01:00", "", false},
		{"empty fraction", "2026-11-03T00:00:00.Z", "", false},
		{"compact implausible year", "12345678", "", false},
		{"compact year 2200", "22001103", "", false},
		{"compact invalid month", "20261303", "", false},
		{"us slashes ambiguous", "11/03/2026", "", false},
		{"year first dots", "2026.11.03", "", false},
		{"two digit year", "03.11.26", "", false},
		{"padded with space", " 2026-11-03", "", false},
		{"year zero", "0000-01-01", "", false},
		{"empty", "", "", false},
		{"text", "tomorrow", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := NormalizeDate(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("NormalizeDate(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func FuzzNormalizeDate(f *testing.F) {
	for _, s := range []string{"2026-11-03", "03.11.2026", "20261103", "2026/11/03", "2026-11-03T00:00:00.0Z", "x", "29.02.2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := NormalizeDate(s)
		if !ok {
			if got != "" {
				t.Fatalf("NormalizeDate(%q) = %q with ok false", s, got)
			}
			return
		}
		if _, err := time.Parse("2006-01-02", got); err != nil {
			t.Fatalf("NormalizeDate(%q) = %q, not a valid date: %v", s, got, err)
		}
		if again, ok := NormalizeDate(got); !ok || again != got {
			t.Fatalf("NormalizeDate is not idempotent on %q: %q, %v", got, again, ok)
		}
	})
}
