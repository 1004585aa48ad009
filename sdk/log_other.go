//go:build !wasip1

package sdk

import (
	"fmt"
	"os"
)

var levelNames = []string{"debug", "info", "warn", "error"}

func writeLog(level int, msg string) {
	name := "log"
	if level >= 0 && level < len(levelNames) {
		name = levelNames[level]
	}
	fmt.Fprintf(os.Stderr, "[plugin %s] %s\n", name, msg)
}
