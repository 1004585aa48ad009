// Command byterelay is the physical floor of a stdio relay, used by the
// proxy benchmark: it starts the command given as its arguments and copies
// lines from its stdin to the child and from the child back to its stdout,
// looking at nothing.
package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		os.Exit(1)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		os.Exit(1)
	}
	if err := cmd.Start(); err != nil {
		os.Exit(1)
	}
	go copyLines(os.Stdout, out)
	copyLines(in, os.Stdin)
	in.Close()
	_ = cmd.Wait()
}

func copyLines(w io.Writer, r io.Reader) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			if _, werr := w.Write(line); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
