package coll_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/coll/sim"
)

var update = flag.Bool("update", false, "rewrite the golden schedules in testdata/")

// TestGoldenSchedules pins the message schedule of every algorithm on 8
// ranks (a power of two) and 6 (not one) with 1024-byte blocks or vectors
// (root 0): testdata/<op>_<algorithm>_<ranks>.txt, as `benches explain`
// prints it. They are also the examples of docs/COLLECTIVES.md. Run
// `go test ./coll -run Golden -update` to rewrite them after a deliberate
// change, and read the diff.
func TestGoldenSchedules(t *testing.T) {
	for _, alg := range builtins {
		for _, n := range []int{8, 6} {
			c := sim.Call{Op: alg.Op, Algorithm: alg.Name, Ranks: n, Bytes: 1024}
			e, err := sim.Explain(c)
			if err != nil {
				t.Errorf("%s/%s n=%d: %v", alg.Op, alg.Name, n, err)
				continue
			}
			var b bytes.Buffer
			e.WriteText(&b)
			golden(t, fmt.Sprintf("%s_%s_%d.txt", alg.Op, alg.Name, n), b.Bytes())
		}
	}
	// A pipelined chain with several segments, the last one empty.
	e, err := sim.Explain(sim.Call{Op: coll.OpBcast, Algorithm: "chain", Ranks: 4, Bytes: 1024, SegmentSize: 256})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	e.WriteText(&b)
	golden(t, "bcast_chain_4_segments.txt", b.Bytes())
}

// TestGoldenSVG pins the drawing of the binomial broadcast.
func TestGoldenSVG(t *testing.T) {
	e, err := sim.Explain(sim.Call{Op: coll.OpBcast, Algorithm: "binomial", Ranks: 8, Bytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	e.Schedule.WriteSVG(&b, "bcast/binomial, 8 ranks, 1024 bytes")
	golden(t, "bcast_binomial_8.svg", b.Bytes())
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%v (run with -update to create it)", err)
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the schedule now produced:\n%s\n(run with -update to accept it)", path, got)
	}
}
