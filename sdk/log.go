package sdk

// Log levels of Log.
const (
	LevelDebug = 0
	LevelInfo  = 1
	LevelWarn  = 2
	LevelError = 3
)

// Log writes one message to the host's plugin log (capped, on the proxy's
// stderr, prefixed with the plugin name). Natively it writes to stderr.
func Log(level int, msg string) { writeLog(level, msg) }
