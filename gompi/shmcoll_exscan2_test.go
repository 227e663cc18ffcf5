//go:build !mpi && !mpich

package gompi

import (
	"errors"
	"testing"
)

// TestExscan2CMA: Exscan (and the other reductions of checkReductions) on
// two ranks through the default selection at sizes where it picks "cma"
// (preferCMAExscan2) and at its bounds, against the reference, with a
// commutative and a non-commutative operator, in place and not; and with
// single copy off or refused, where the next rule runs.
func TestExscan2CMA(t *testing.T) {
	for _, m := range []int{exscan2CMAMin/4 + 1, 32 << 8, 32<<8 + 3, exscan2CMAMax / 4, exscan2CMAMin/4 - 1, 16 << 8} {
		checkReductions(t, 2, m, "", sumInt32)
		checkReductions(t, 2, m/3, "", composeCase)
	}
	t.Run("turned off", func(t *testing.T) {
		t.Setenv("GOMPI_SHM_CMA_COLL", "0")
		checkReductions(t, 2, 32<<8+3, "", sumInt32)
	})
	t.Run("refused", func(t *testing.T) {
		defer func(f func(int, []byte, uint64) error) { readRemote = f }(readRemote)
		readRemote = func(int, []byte, uint64) error { return errors.New("refused for the test") }
		checkReductions(t, 2, 32<<8+3, "", sumInt32)
	})
}
