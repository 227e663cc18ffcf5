//go:build !mpi && !mpich

package gompi_test

import (
	"fmt"
	"testing"

	"github.com/gompi/gompi/internal/conformance"
)

// TestConformance runs the conformance suite with ranks as goroutines, once
// per communicator size each case asks for. The same cases run over MPI
// under mpirun (test/conformance, built with -tags mpi).
func TestConformance(t *testing.T) {
	for _, tc := range conformance.Cases(conformance.Options{Short: testing.Short()}) {
		t.Run(tc.Name, func(t *testing.T) {
			if len(tc.Ranks) == 1 {
				run(t, tc.Ranks[0], tc.Run)
				return
			}
			for _, p := range tc.Ranks {
				t.Run(fmt.Sprint(p), func(t *testing.T) { run(t, p, tc.Run) })
			}
		})
	}
}

func caseNamed(t *testing.T, name string) conformance.Case {
	for _, tc := range conformance.Cases(conformance.Options{}) {
		if tc.Name == name {
			return tc
		}
	}
	t.Fatalf("no conformance case %q", name)
	return conformance.Case{}
}
