package main

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listSampleTools starts `sample-server ARGS` over in-process pipes and
// returns the names of the tools it lists to an MCP client.
func listSampleTools(t *testing.T, args ...string) []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- runSampleServer(ctx, args, stdio{in: inR, out: outW, err: io.Discard})
		outW.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	cs.Close()
	inW.Close()
	if err := <-done; err != nil {
		t.Fatalf("sample-server %v: %v", args, err)
	}
	return names
}

// TestSampleServerSearch: `sample-server --search off` lists no
// find_bookings (only get_booking reads, by id) — the seed's "not
// searchable" condition; on (the default) lists it (SPEC §18.4).
func TestSampleServerSearch(t *testing.T) {
	all := []string{"cancel_booking", "create_booking", "find_bookings", "get_booking"}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"default", nil, all},
		{"on", []string{"--search", "on"}, all},
		{"OFF any case", []string{"--search=OFF"}, []string{"cancel_booking", "create_booking", "get_booking"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := listSampleTools(t, tc.args...); !slices.Equal(got, tc.want) {
				t.Errorf("tools %v, want %v", got, tc.want)
			}
		})
	}
	err := runSampleServer(context.Background(), []string{"--search", "maybe"}, stdio{in: strings.NewReader(""), out: io.Discard, err: io.Discard})
	var ue usageError
	if !asUsage(err, &ue) || !strings.Contains(err.Error(), `flag --search: "maybe" is not on or off`) {
		t.Errorf("--search maybe: %v (want a usage error naming the flag)", err)
	}
}
