package mpiperf

import (
	"fmt"
	"os"

	"github.com/gompi/gompi/gompi"
	"github.com/gompi/gompi/hwtopo"
	"github.com/gompi/gompi/internal/jobenv"
)

// bind pins each rank's process to a core of its own when the ranks of its
// host do not outnumber the cores and the ranks are processes (under
// golaunch), as MPI benchmarks run bound. Unbound, the kernel woke a rank on
// its peer's CPU now and then (a sleeping rank is woken by the other one) and
// left both spinning there for milliseconds: every launch of a point started
// hundreds of µs late on one rank. It returns what the header says, the same
// on every rank, and is collective.
func (r *runner) bind() (string, error) {
	if r.cfg.Bind == "none" {
		return "not bound (--bind none)", nil
	}
	if os.Getenv(jobenv.Rank) == "" {
		return "not bound (ranks are goroutines of one process)", nil
	}
	me := r.world.Rank()
	local, size := 0, 0
	for i, h := range r.hosts {
		if h == r.hosts[me] {
			if i < me {
				local++
			}
			size++
		}
	}
	msg, status := "", []int32{0}
	t, err := hwtopo.Discover()
	if err == nil {
		var plan *hwtopo.Plan
		if plan, err = t.Plan(size, hwtopo.MapByCore, hwtopo.BindCore); err == nil {
			if plan.Oversubscribed {
				msg = "not bound: ranks outnumber the cores"
			} else if err = plan.Bind(local, os.Getpid()); err == nil {
				msg = "bound: one core per rank (rank → CPUs " + plan.Slots[local].CPUs.String() + " on rank " + fmt.Sprint(me) + ")"
				status[0] = 1
			}
		}
	}
	all := []int32{0}
	if err := gompi.Allreduce(r.world, status, all, gompi.Sum[int32]()); err != nil {
		return "", err
	}
	switch {
	case int(all[0]) == r.world.Size():
		return fmt.Sprintf("bound: each rank to a core of its own (%s)", r.bindMap()), nil
	case all[0] == 0 && msg != "":
		return msg, nil
	case err != nil:
		return fmt.Sprintf("not bound on every rank (rank %d: %v)", me, err), nil
	}
	return fmt.Sprintf("bound on %d of %d ranks", all[0], r.world.Size()), nil
}

// bindMap describes where the ranks are bound (from each rank's affinity).
func (r *runner) bindMap() string {
	cpus, err := hwtopo.Affinity(0)
	mine := []int32{-1}
	if err == nil && len(cpus) == 1 {
		mine[0] = int32(cpus[0])
	}
	all := make([]int32, r.world.Size())
	if err := gompi.Allgather(r.world, mine, all); err != nil {
		return "?"
	}
	s := ""
	for i, c := range all {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%d→CPU%d", i, c)
	}
	return s
}
