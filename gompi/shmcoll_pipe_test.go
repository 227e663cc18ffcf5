//go:build !mpi && !mpich

package gompi

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gompi/gompi/coll"
)

// The pipelined two-rank step ("shm_pipe", shmcoll_pipe.go) against results
// computed here: named on two ranks (both roots, in place and not, one
// piece, several, a last piece short, pieces of 512 bytes up to the bound on
// their count), through the default selection on 1..17 ranks (two ranks:
// the table picks it between pipeMin and pipeMax; elsewhere the rest of the
// table runs), and ranks that disagree.

var pipeSizes = []int{0, 1, 1000, 8191, 8192, 8193, 16 << 10, 32 << 10, 32<<10 + 13, 60 << 10}

// TestPipeNamed: "shm_pipe" named on two ranks, both roots, in place and
// not, at several sizes and pieces (both scratch halves serve).
func TestPipeNamed(t *testing.T) {
	for _, piece := range []int{pipePiece, 512, 4096} {
		t.Run(fmt.Sprintf("piece-%d", piece), func(t *testing.T) {
			defer func(p int) { pipePiece = p }(pipePiece)
			pipePiece = piece
			runCMATest(t, 2, func(c *Comm) error {
				for i, m := range pipeSizes {
					for k := 4 * i; k < 4*i+4; k++ {
						if err := rootedCheck(c, k, m, WithAlgorithm("shm_pipe")); err != nil {
							return err
						}
					}
				}
				return nil
			})
		})
	}
}

// TestPipePieceOf: the pieces of a block never outnumber pipeMaxPieces and
// are multiples of 64.
func TestPipePieceOf(t *testing.T) {
	for _, m := range []int{0, 1, 8 << 10, 64 << 10, 1 << 20, 1<<20 + 1} {
		q := pipePieceOf(m)
		if q%64 != 0 || q < pipePiece || (m+q-1)/q > pipeMaxPieces {
			t.Errorf("block %d: piece %d", m, q)
		}
	}
}

// TestPipeSelected: the default selection on 1..17 ranks around the bounds
// (two ranks: "shm_pipe" in between; the others: the rest of the table).
func TestPipeSelected(t *testing.T) {
	ranks := []int{1, 2, 3, 4, 5, 7, 8, 9, 16, 17}
	if testing.Short() {
		ranks = []int{1, 2, 3, 17}
	}
	sizes := []int{pipeMin - 1, pipeMin, 32 << 10, pipeMax, pipeMax + 1}
	for _, n := range ranks {
		t.Run(fmt.Sprintf("%d-ranks", n), func(t *testing.T) {
			runCMATest(t, n, func(c *Comm) error {
				for i, m := range sizes {
					for k := 2 * i; k < 2*i+2+n%2; k++ { // odd n: a third root
						if err := rootedCheck(c, k, m); err != nil {
							return err
						}
					}
				}
				return nil
			})
		})
	}
}

// TestPipeChosen: the table runs "shm_pipe" on two ranks between pipeMin
// and pipeMax, and not on more ranks or outside the bounds.
func TestPipeChosen(t *testing.T) {
	for _, s := range pipeAlgs {
		for _, size := range []int{pipeMin, 32 << 10, pipeMax} {
			if got := coll.Select(s.op, 2, size); got != "shm_pipe" {
				t.Errorf("%s of %d bytes on 2 ranks: the table gives %q, want shm_pipe", s.op, size, got)
			}
			if got := coll.Select(s.op, 3, size); got == "shm_pipe" {
				t.Errorf("%s of %d bytes on 3 ranks: the table gives shm_pipe", s.op, size)
			}
		}
		for _, size := range []int{pipeMin - 1, pipeMax + 1} {
			if got := coll.Select(s.op, 2, size); got == "shm_pipe" {
				t.Errorf("%s of %d bytes on 2 ranks: the table gives shm_pipe", s.op, size)
			}
		}
	}
}

// TestPipeMismatch: ranks that disagree on the size, or of which one runs
// "shm" and the other "shm_pipe", get ErrMismatch where they read (a
// writer does not look); nobody hangs, and later calls work.
func TestPipeMismatch(t *testing.T) {
	pipe, plain := WithAlgorithm("shm_pipe"), WithAlgorithm("shm")
	cases := []struct {
		name string
		// call runs rank me's side; fails lists the ranks that must see
		// ErrMismatch (the others may, or may return nil).
		call  func(c *Comm) error
		fails []int
	}{
		{"bcast-size", func(c *Comm) error {
			return c.Bcast(make([]byte, 20000+4096*c.Rank()), 0, pipe)
		}, []int{1}},
		{"gather-size", func(c *Comm) error {
			return c.Gather(make([]byte, 20000+4096*c.Rank()), make([]byte, 2*20000), 0, pipe)
		}, []int{0}},
		{"bcast-reader-plain", func(c *Comm) error { // the root writes pieces, rank 1 waits for a post
			alg := pipe
			if c.Rank() == 1 {
				alg = plain
			}
			return c.Bcast(make([]byte, 20000), 0, alg)
		}, []int{1}},
		{"bcast-writer-plain", func(c *Comm) error { // the root posts without pieces, rank 1 waits for them
			alg := pipe
			if c.Rank() == 0 {
				alg = plain
			}
			return c.Bcast(make([]byte, 20000), 0, alg)
		}, []int{1}},
		{"gather-root-plain", func(c *Comm) error {
			alg := pipe
			if c.Rank() == 0 {
				alg = plain
			}
			return c.Gather(make([]byte, 20000), make([]byte, 40000), 0, alg)
		}, []int{0}},
		{"gather-writer-plain", func(c *Comm) error {
			alg := pipe
			if c.Rank() == 1 {
				alg = plain
			}
			return c.Gather(make([]byte, 20000), make([]byte, 40000), 0, alg)
		}, []int{0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			runCMATest(t, 2, func(c *Comm) error {
				if err := rootedCheck(c, 0, 20000, pipe); err != nil { // agree first
					return err
				}
				err := tc.call(c)
				must := false
				for _, r := range tc.fails {
					must = must || r == c.Rank()
				}
				if must && !errors.Is(err, ErrMismatch) || err != nil && !errors.Is(err, ErrMismatch) {
					return fmt.Errorf("%s: %v on rank %d, want ErrMismatch", tc.name, err, c.Rank())
				}
				if err := c.Barrier(); err != nil {
					return err
				}
				for k := 1; k < 5; k++ {
					if err := rootedCheck(c, k, 20000+k); err != nil {
						return err
					}
				}
				return nil
			})
		})
	}
}
