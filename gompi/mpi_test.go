//go:build mpi || mpich

package gompi_test

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/gompi"
)

// Under the MPI backend the package's tests run as a one-rank MPI job (no
// mpirun needed); the conformance suite runs on many ranks under mpirun
// (test/conformance). The in-process tests (gompi.Run) are built without
// the tag only.

func TestMain(m *testing.M) {
	os.Setenv("GOMPI_TIMER", "mpi")
	if err := gompi.Init(); err != nil {
		panic(err)
	}
	code := m.Run()
	gompi.Finalize()
	os.Exit(code)
}

func TestBackendIsMPI(t *testing.T) {
	if b := gompi.Backend(); b != "mpi" && b != "mpich" {
		t.Fatalf("Backend() = %q", gompi.Backend())
	}
	if w := gompi.World(); w == nil || w.Size() < 1 {
		t.Fatal("no world after Init")
	}
}

func TestHostsAndTransport(t *testing.T) {
	w := gompi.World()
	if got := w.Transport(0); got != "self" {
		t.Errorf("Transport(0) on one rank = %q", got)
	}
	if got := gompi.HostOf(0); got != gompi.Host() {
		t.Errorf("HostOf(0) = %q, Host() = %q", got, gompi.Host())
	}
}

func TestMPIClockFromEnvironment(t *testing.T) {
	if name := gompi.Timer().Name(); name != "mpi" {
		t.Fatalf("GOMPI_TIMER=mpi gave the %q clock", name)
	}
	a := gompi.Wtime()
	time.Sleep(2 * time.Millisecond)
	if d := gompi.Wtime() - a; d < 0.0019 || d > 5 || gompi.Wtick() <= 0 {
		t.Fatalf("2 ms measured as %g s, Wtick %g", d, gompi.Wtick())
	}
}

// TestMPICollectivesAreTheDefault: the library's own collective comes first
// for every operation, size and rank count; gompi's stay selectable.
func TestMPICollectivesAreTheDefault(t *testing.T) {
	for _, op := range coll.Operations() {
		for _, n := range []int{1, 2, 7, 64} {
			for _, bytes := range []int{0, 8, 1 << 20, 1 << 26} {
				if got := coll.Select(op, n, bytes); got != "mpi" {
					t.Errorf("%s on %d ranks, %d bytes: %q", op, n, bytes, got)
				}
			}
		}
		if len(coll.Algorithms(op)) < 2 {
			t.Errorf("%s: no algorithm of gompi's to compare with", op)
		}
	}
	w := gompi.World()
	buf := []byte{1, 2, 3}
	if err := w.Bcast(buf, 0, gompi.WithAlgorithm("linear")); err != nil {
		t.Fatal(err)
	}
	if err := w.SetAlgorithm("bcast", "mpi"); err != nil {
		t.Fatal(err)
	}
}

// Under -tags mpi, Run runs fn as this process's rank of the MPI job.
func TestRunOverMPI(t *testing.T) {
	w := gompi.World()
	ran := false
	err := gompi.Run(w.Size(), func(c *gompi.Comm) error {
		ran = true
		if c != w || gompi.World() != w {
			t.Error("Run's communicator is not the MPI world")
		}
		return nil
	})
	if err != nil || !ran {
		t.Fatalf("Run(%d): %v (ran %v)", w.Size(), err, ran)
	}
	if err := gompi.Run(w.Size()+1, func(*gompi.Comm) error { return nil }); !errors.Is(err, gompi.ErrArg) {
		t.Fatalf("Run of another size: %v, want ErrArg", err)
	}
}
