package sdk

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/cuonztech/agent-harness/sdk/abi"
)

// TestExportsAreTheABINames: the //go:wasmexport directives, which must be
// literal, name exactly the exports package abi lists.
func TestExportsAreTheABINames(t *testing.T) {
	src, err := os.ReadFile("exports_wasip1.go")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range regexp.MustCompile(`(?m)^//go:wasmexport (\S+)$`).FindAllSubmatch(src, -1) {
		got = append(got, string(m[1]))
	}
	want := []string{abi.ExportMarker, abi.ExportAlloc, abi.ExportFree, abi.ExportManifest, abi.ExportInit,
		abi.ExportClassify, abi.ExportEquivKey, abi.ExportEquivSame, abi.ExportFault}
	if !slices.Equal(got, want) {
		t.Errorf("exports_wasip1.go exports %q, package abi names %q", got, want)
	}
}
