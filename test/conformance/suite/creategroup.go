package suite

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/gompi/gompi/gompi"
)

// Comm.CreateGroup (MPI_Comm_create_group): only the group's members call
// it, so they agree on the new communicator among themselves while the
// other ranks do something else.
var createGroupCases = []Case{
	{"CommCreateGroup", ranks(1, 6), commCreateGroup},
	{"CommCreateGroupConcurrentTags", []int{1, 2, 3, 4}, commCreateGroupConcurrent},
}

// checkGroupComm checks that d is g as a communicator: the caller's rank,
// the size, and an Allreduce over it that sums the members' ranks in c.
func checkGroupComm(what string, c, d *gompi.Comm, members []int) error {
	if d == nil {
		return fmt.Errorf("%s: rank %d of the group got no communicator", what, c.Rank())
	}
	if d.Size() != len(members) || d.Rank() != slices.Index(members, c.Rank()) {
		return fmt.Errorf("%s: rank %d of %d, want %d of %d", what, d.Rank(), d.Size(), slices.Index(members, c.Rank()), len(members))
	}
	sum := make([]int64, 1)
	if err := gompi.Allreduce(d, []int64{int64(c.Rank())}, sum, gompi.Sum[int64]()); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	want := int64(0)
	for _, r := range members {
		want += int64(r)
	}
	if sum[0] != want {
		return fmt.Errorf("%s: sum over the communicator %d, want %d", what, sum[0], want)
	}
	return nil
}

// createGroup makes the communicator of members (ranks of c) with tag and
// checks it; a rank outside members must get nil.
func createGroup(what string, c *gompi.Comm, members []int, tag int) error {
	g, err := c.Group().Incl(members)
	if err != nil {
		return err
	}
	d, err := c.CreateGroup(g, tag)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if !slices.Contains(members, c.Rank()) {
		if d != nil {
			return fmt.Errorf("%s: rank %d outside the group got a communicator", what, c.Rank())
		}
		return nil
	}
	if err := checkGroupComm(what, c, d, members); err != nil {
		return err
	}
	return d.Free()
}

func commCreateGroup(c *gompi.Comm) error {
	me, n := c.Rank(), c.Size()
	// Two disjoint groups at once, with the same tag: the even ranks and
	// the odd ones, each in reverse order.
	var mine []int
	for r := n - 1; r >= 0; r-- {
		if r%2 == me%2 {
			mine = append(mine, r)
		}
	}
	if err := createGroup("disjoint groups", c, mine, 3); err != nil {
		return err
	}
	// Overlapping groups in sequence: the first half and one more, then
	// the second half; the ranks in both make them in this order, the
	// others go straight to theirs.
	mid := n / 2
	first, second := ranks(0, mid), ranks(mid, n-1)
	if slices.Contains(first, me) {
		if err := createGroup("first half", c, first, 4); err != nil {
			return err
		}
	}
	if slices.Contains(second, me) {
		if err := createGroup("second half", c, second, 4); err != nil {
			return err
		}
	}
	// A group of one: no message at all.
	if err := createGroup("self", c, []int{me}, 0); err != nil {
		return err
	}
	// The whole communicator, and a group without the caller (nil at once).
	if err := createGroup("whole", c, ranks(0, n-1), gompi.MaxTag); err != nil {
		return err
	}
	if n > 1 {
		others := slices.DeleteFunc(ranks(0, n-1), func(r int) bool { return r == me })
		g, err := c.Group().Incl(others)
		if err != nil {
			return err
		}
		if d, err := c.CreateGroup(g, 0); d != nil || err != nil {
			return fmt.Errorf("CreateGroup without the caller: %v %v, want nil, nil", d, err)
		}
	}
	if _, err := c.CreateGroup(c.Group(), -1); !errors.Is(err, gompi.ErrTag) {
		return fmt.Errorf("CreateGroup with tag -1: %v, want ErrTag", err)
	}
	if _, err := c.CreateGroup(c.Group(), gompi.MaxTag+1); !errors.Is(err, gompi.ErrTag) {
		return fmt.Errorf("CreateGroup with tag MaxTag+1: %v, want ErrTag", err)
	}
	return c.Barrier()
}

// commCreateGroupConcurrent: goroutines of every rank make communicators of
// the whole group at once, each with its own tag, then reduce over them at
// once: each communicator must be distinct (a context taken twice would
// mix their reductions). Pure-Go backend only: the MPI backend, serialized,
// holds its lock through a constructor, so two at once on a rank would
// wait for each other.
func commCreateGroupConcurrent(c *gompi.Comm) error {
	if gompi.Backend() != "go" {
		return fmt.Errorf("%w: constructors at once on one rank need the pure-Go backend", ErrSkip)
	}
	const workers = 3
	n := c.Size()
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = func() error {
				for round := range 3 {
					d, err := c.CreateGroup(c.Group(), 10+w)
					if err != nil {
						return err
					}
					// Each worker sums its own values over its own
					// communicator, several times.
					for i := range 5 {
						sum := make([]int64, 1)
						v := int64(1000*w + 100*round + i)
						if err := gompi.Allreduce(d, []int64{v}, sum, gompi.Sum[int64]()); err != nil {
							return err
						}
						if sum[0] != v*int64(n) {
							return fmt.Errorf("worker %d: sum %d, want %d", w, sum[0], v*int64(n))
						}
					}
					if err := d.Free(); err != nil {
						return err
					}
				}
				return nil
			}()
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return c.Barrier()
}
