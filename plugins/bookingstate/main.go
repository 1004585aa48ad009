// Command bookingstate is an agent-harness state plugin (the state hook,
// SPEC §19): it attributes the backend's bookings to create_booking
// operations by guest, for runs where one counter per tool cannot say
// which of several bookings was made twice. See README.md.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o bookingstate.wasm .
package main

import "github.com/cuonztech/agent-harness/sdk"

// Version is the plugin version in the manifest.
const Version = "0.1.0"

func init() {
	sdk.Register(sdk.Plugin{
		Name:    "bookingstate",
		Version: Version,
		State:   Attribute,
	})
}

// main is not run in a reactor module; it exists so the package also
// builds natively for tests.
func main() {}
