//go:build !mpi && !mpich

package gompi_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/gompi/gompi/gompi"
)

// Init failures have a class, and their cause stays reachable.
func TestInitBadEnvironment(t *testing.T) {
	t.Setenv("GOMPI_RANK", "not-a-number")
	err := gompi.Init()
	if !errors.Is(err, gompi.ErrEnvironment) {
		t.Fatalf("Init with GOMPI_RANK=not-a-number: %v, want ErrEnvironment", err)
	}
	var e *gompi.Error
	if !errors.As(err, &e) || e.Cause == nil || e.Op != "Init" || e.Hint == "" {
		t.Fatalf("Init error has no cause or hint: %#v", err)
	}
	if strings.Count(err.Error(), "gompi:") != 1 {
		t.Errorf("prefix repeated: %q", err)
	}
	if gompi.Initialized() {
		t.Fatal("a failed Init left gompi initialized")
	}
	os.Unsetenv("GOMPI_RANK")
}

// Inside Run, World, Init, Initialized and Finalize act on the calling rank.
func TestWorldInsideRun(t *testing.T) {
	err := gompi.Run(3, func(c *gompi.Comm) error {
		if err := gompi.Init(); err != nil {
			return err
		}
		if gompi.World() != c || !gompi.Initialized() {
			return errors.New("World() is not the rank's world inside Run")
		}
		if err := gompi.World().Barrier(); err != nil {
			return err
		}
		return gompi.Finalize()
	})
	if err != nil {
		t.Fatal(err)
	}
	if gompi.World() != nil {
		t.Fatal("World() outside Run and without Init is not nil")
	}
}
