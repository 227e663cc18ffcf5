//go:build !mpi && !mpich

package gompi_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gompi/gompi/gompi"
)

// The shared-memory algorithms ("shm") belong to the pure-Go runtime; the
// collective cases every backend passes are in internal/conformance.

func TestShmMismatchCaughtBySignatures(t *testing.T) {
	run(t, 4, func(c *gompi.Comm) error {
		n := 10
		if c.Rank() == 1 {
			n = 12
		}
		err := c.Bcast(make([]byte, n), 0, gompi.WithAlgorithm("shm"))
		if !errors.Is(err, gompi.ErrMismatch) {
			return fmt.Errorf("every rank should see the mismatch, got %v", err)
		}
		return nil
	})
}

// TestShmSlotsAreRecycled makes and frees more communicators than there are
// collective slots; each must still get one.
func TestShmSlotsAreRecycled(t *testing.T) {
	run(t, 3, func(c *gompi.Comm) error {
		for i := 0; i < 30; i++ {
			d, err := c.Dup()
			if err != nil {
				return err
			}
			if err := d.Barrier(gompi.WithAlgorithm("shm")); err != nil {
				return fmt.Errorf("communicator %d: %w", i, err)
			}
			if err := d.Free(); err != nil {
				return err
			}
		}
		return nil
	})
}
