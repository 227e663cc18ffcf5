// Package suite holds the API conformance suite of gompi: cases that
// every backend must pass, each a function of a communicator and the sizes
// of communicator it runs on. One suite, run two ways:
//
//   - the tests of package gompi run every case under gompi.Run, ranks as
//     goroutines over the pure-Go runtime (go test ./gompi);
//   - the command test/conformance runs them on the world of a real job:
//     built with -tags mpi and started by mpirun, over a real MPI library
//     (or started by golaunch, over the pure-Go runtime's processes).
//
// A case gets a communicator of exactly the size it asks for, which it may
// assume is fresh (no messages in flight, no algorithm chosen); it should
// leave it so. It returns an error saying what
// went wrong; it must not stop early on one rank in a way that leaves the
// others waiting for it, except by returning an error (under gompi.Run the
// others then see ErrPeerLost; under mpirun the driver's watchdog aborts the
// job).
//
// Where a backend legitimately behaves differently (MPI's own collectives do
// not check that ranks agree on their arguments; the shared-memory
// algorithms exist only over the pure-Go runtime), the case says so and
// branches on gompi.Backend().
//
// It sits on top of the API, so it lives under test/ (the home of the
// end-to-end tests) and not under the top-level internal/, which is ground
// every package may import.
package suite

import (
	"errors"
	"slices"

	"github.com/gompi/gompi/gompi"
)

// ErrSkip, wrapped in a case's error on every rank, says that the case does
// not apply to this job (the reason follows); harnesses report it as
// skipped.
var ErrSkip = errors.New("not applicable here")

// Case is one conformance case.
type Case struct {
	Name  string
	Ranks []int // communicator sizes to run it on
	Run   func(c *gompi.Comm) error
}

// Options tune a run of the suite.
type Options struct {
	// Short trims the largest sizes (as go test -short).
	Short bool
}

// Cases returns the suite.
func Cases(o Options) []Case {
	return slices.Concat(p2pCases, collCases(o), moreCases, alltoallvCountCases, truncateCases, errorCases, mprobeCases, apiMoreCases, createGroupCases, rmaCases)
}

func ranks(lo, hi int) []int {
	var rs []int
	for p := lo; p <= hi; p++ {
		rs = append(rs, p)
	}
	return rs
}

func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) + seed
	}
	return b
}

// Sizes around the pure-Go runtime's protocol boundaries: empty, eager, the
// last eager size, the first rendezvous size, and large.
var sizes = []int{0, 1, 7, 4031, 4032, 4033, 65536, 1<<20 + 3}

// val is rank r's element i of a test vector.
func val(r, i int) int32 { return int32(r*1000003 + i*7 + 1) }

func vec(r, n int) []int32 {
	v := make([]int32, n)
	for i := range v {
		v[i] = val(r, i)
	}
	return v
}

func head(x any) any {
	if s, ok := x.([]int32); ok && len(s) > 4 {
		return s[:4]
	}
	return x
}
