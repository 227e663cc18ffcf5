//go:build !mpi && !mpich

package gompi_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gompi/gompi/gompi"
	"github.com/gompi/gompi/test/conformance/suite"
)

// TestConformance runs the conformance suite with ranks as goroutines, once
// per communicator size each case asks for. The same cases run over MPI
// under mpirun (test/conformance, built with -tags mpi).
func TestConformance(t *testing.T) {
	for _, tc := range suite.Cases(suite.Options{Short: testing.Short()}) {
		t.Run(tc.Name, func(t *testing.T) {
			if len(tc.Ranks) == 1 {
				runCase(t, tc.Ranks[0], tc.Run)
				return
			}
			for _, p := range tc.Ranks {
				t.Run(fmt.Sprint(p), func(t *testing.T) { runCase(t, p, tc.Run) })
			}
		})
	}
}

// runCase is run for a conformance case, which may not apply here.
func runCase(t *testing.T, n int, fn func(c *gompi.Comm) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := gompi.RunContext(ctx, n, fn)
	if errors.Is(err, suite.ErrSkip) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func caseNamed(t *testing.T, name string) suite.Case {
	for _, tc := range suite.Cases(suite.Options{}) {
		if tc.Name == name {
			return tc
		}
	}
	t.Fatalf("no conformance case %q", name)
	return suite.Case{}
}
