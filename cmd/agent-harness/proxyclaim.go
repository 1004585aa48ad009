package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cuonztech/agent-harness/internal/escape"
)

// maxNumberedFiles bounds the numbered names --no-replace tries.
const maxNumberedFiles = 1000

// claimFiles applies --no-replace: the first of the names n = 1, 2, … whose
// report file (or, without --report-file, trace) does not exist yet is
// created empty, which claims it for this process, and o's --report-file
// and --trace become the names of that n (n = 1 keeps them as given). So
// two proxies of one campaign run — an agent that starts its server twice
// — never write the same files: no report is lost (behaviour §9.1). A name
// that cannot be created for another reason stays as given: opening it
// then fails with its usual exit-2 line. One stderr line names the files
// when they are not the given ones.
func claimFiles(o *proxyOptions, stderr io.Writer) {
	if !o.NoReplace {
		return
	}
	primary := o.ReportFile
	if primary == "" {
		primary = o.TraceFile
	}
	for n := 1; n <= maxNumberedFiles; n++ {
		f, err := os.OpenFile(numberedName(primary, n), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return
		}
		f.Close()
		if n == 1 {
			return
		}
		var names []string
		if o.ReportFile != "" {
			o.ReportFile = numberedName(o.ReportFile, n)
			names = append(names, o.ReportFile)
		}
		if o.TraceFile != "" {
			o.TraceFile = numberedName(o.TraceFile, n)
			names = append(names, o.TraceFile)
		}
		fmt.Fprintf(stderr, "[agent-harness] proxy: --no-replace: %s exists (another proxy's); this proxy writes %s\n",
			escape.Line(primary), escape.Line(strings.Join(names, " and ")))
		return
	}
}

// numberedName is path for n = 1, else path with ".n" before its
// extension: report.json → report.2.json, trace.jsonl → trace.2.jsonl.
func numberedName(path string, n int) string {
	if n == 1 {
		return path
	}
	ext := filepath.Ext(path)
	if ext == filepath.Base(path) {
		ext = "" // a name like ".report"
	}
	return strings.TrimSuffix(path, ext) + "." + strconv.Itoa(n) + ext
}
