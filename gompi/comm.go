package gompi

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gompi/gompi/gompi/internal/backend"
	"github.com/gompi/gompi/gompi/internal/base"
)

// Comm is a communicator: a group of ranks with a private message space.
// Messages sent on one communicator never match receives on another. A Comm
// is safe for concurrent use; collective calls on one communicator must be
// made in the same order by every member (as in MPI).
type Comm struct {
	r     *rank
	c     *backend.Comm
	freed atomic.Bool
	colls collConfig
	bx    collComm     // the adapter of this communicator's blocking collectives
	cma   atomic.Int32 // single-copy collectives agreed on: cmaUnknown, cmaOn, cmaOff (shmcma.go)
	// scaled are the counts and displacements of a typed blocking
	// collective in bytes (inBytes).
	scaled [4][]int
	// tid names the communicator in traces, the same on every member: the
	// world is 1, a child is a hash of its parent's id, how many children
	// the parent had made before (every member creates them in the same
	// order) and its color.
	tid       uint32
	kids      atomic.Uint32
	groupMu   sync.Mutex
	groupKids map[string]uint32 // CreateGroup calls made, by group and tag
	// inTrace is set once the rank's trace has the communicator's members.
	inTrace atomic.Bool
}

func newComm(r *rank, c *backend.Comm) *Comm {
	x := &Comm{r: r, c: c, tid: 1}
	c.SetUser(x)
	return x
}

// Rank returns the calling rank's number in c, from 0 to Size()-1.
func (c *Comm) Rank() int { return c.c.Rank() }

// Size returns the number of ranks in c.
func (c *Comm) Size() int { return c.c.Size() }

// Name returns a descriptive name ("world", "world.split(1)").
func (c *Comm) Name() string { return c.c.Name() }

// String describes c for messages.
func (c *Comm) String() string {
	if c == nil {
		return "<nil communicator>"
	}
	return fmt.Sprintf("%s (rank %d of %d)", c.c.Name(), c.c.Rank(), c.c.Size())
}

// WorldRank returns the world rank of rank r of c.
func (c *Comm) WorldRank(r int) int { return c.c.WorldRank(r) }

// Dup returns a communicator with the same ranks and a separate message
// space; every member must call it. Libraries use it to keep their messages
// apart from the caller's.
func (c *Comm) Dup() (*Comm, error) {
	if err := c.valid("Dup"); err != nil {
		return nil, err
	}
	var nc *backend.Comm
	err := c.traced(RoutineCommDup, -1, -1, -1, func() (err error) { nc, err = c.c.Dup(); return })
	if err != nil {
		return nil, err
	}
	d := newComm(c.r, nc)
	d.tid = c.childID(0)
	c.colls.copyTo(&d.colls)
	return d, nil
}

// childID is the trace id of the next communicator made from c.
func (c *Comm) childID(color int) uint32 {
	return traceID(c.tid, c.kids.Add(1), uint32(color))
}

// groupChildID is the trace id of the communicator CreateGroup makes of g
// with tag. Only g's members call it, so it cannot advance the count of
// children every member of c keeps; each member counts instead its calls
// with this group and tag, which all members of g make in the same order.
func (c *Comm) groupChildID(g Group, tag int) uint32 {
	key := fmt.Sprint(tag, g.world)
	c.groupMu.Lock()
	if c.groupKids == nil {
		c.groupKids = map[string]uint32{}
	}
	c.groupKids[key]++
	n := c.groupKids[key]
	c.groupMu.Unlock()
	vals := []uint32{c.tid, n, uint32(tag), 0xffffffff} // the last tells it from childID's
	for _, w := range g.world {
		vals = append(vals, uint32(w))
	}
	return traceID(vals...)
}

// traceID hashes vals (FNV-1a) into a communicator's trace id.
func traceID(vals ...uint32) uint32 {
	h := uint32(2166136261)
	for _, v := range vals {
		for i := 0; i < 4; i++ {
			h = (h ^ (v >> (8 * i) & 0xff)) * 16777619
		}
	}
	return h | 2 // never 0 (none) nor 1 (the world)
}

// Split partitions c: ranks that pass the same color form one new
// communicator, ordered by key (ties by rank in c). Every member must call
// it. A rank that passes Undefined (or any negative color) joins none and
// gets nil.
func (c *Comm) Split(color, key int) (*Comm, error) {
	if err := c.valid("Split"); err != nil {
		return nil, err
	}
	return c.split(RoutineCommSplit, color, key)
}

// split is Split traced as op (Split, or the constructors made of it).
func (c *Comm) split(op Routine, color, key int) (*Comm, error) {
	if color < 0 && color != Undefined {
		color = Undefined
	}
	var nc *backend.Comm
	err := c.traced(op, -1, -1, -1, func() (err error) { nc, err = c.c.Split(color, key); return })
	id := c.childID(color) // on every member, so that the count agrees
	if err != nil || nc == nil {
		return nil, err
	}
	d := newComm(c.r, nc)
	d.tid = id
	c.colls.copyTo(&d.colls)
	return d, nil
}

// Free releases c; using it afterwards returns ErrComm. Every member must call
// it (it is collective, as in MPI). The world communicator cannot be freed.
func (c *Comm) Free() error {
	if err := c.valid("Free"); err != nil {
		return err
	}
	if c == c.r.world {
		return c.errf("Free", base.ErrComm, -1, -1, "the world communicator cannot be freed", "")
	}
	if c.freed.Swap(true) {
		return c.errf("Free", base.ErrComm, -1, -1, "the communicator was already freed", "")
	}
	if err := c.c.DrainNBC(); err != nil { // its pending nonblocking collectives' steps (nbcshm.go)
		return err
	}
	return c.c.Free()
}

func (c *Comm) traced(op Routine, peer, tag, n int, f func() error) error {
	if b := tracer.Load(); b != nil {
		return b.run(op, c, peer, tag, n, f)
	}
	return f()
}

// valid checks that c can be used.
func (c *Comm) valid(op string) error {
	if c == nil {
		return base.New(op, base.ErrComm, "the communicator is nil", "call gompi.Init and use gompi.World(), or use gompi.Run")
	}
	if c.freed.Load() {
		return c.errf(op, base.ErrComm, -1, -1, "the communicator "+c.c.Name()+" was freed", "")
	}
	return nil
}

func (c *Comm) errf(op string, class error, peer, tag int, detail, hint string) error {
	return &base.Error{Op: op, Rank: c.c.Rank(), Peer: peer, Tag: tag, Err: class, Detail: detail, Hint: hint}
}

// checkSend validates the arguments of a send.
func (c *Comm) checkSend(op string, dest, tag int) error {
	if err := c.valid(op); err != nil {
		return err
	}
	if (dest < 0 || dest >= c.c.Size()) && dest != ProcNull {
		return c.errf(op, base.ErrRank, dest, tag,
			fmt.Sprintf("destination %d is not a rank of %s (0..%d)", dest, c.c.Name(), c.c.Size()-1), "")
	}
	if tag < 0 || tag > MaxTag {
		return c.errf(op, base.ErrTag, dest, tag, fmt.Sprintf("tag %d is outside 0..%d", tag, MaxTag),
			"AnyTag is only for receives")
	}
	return nil
}

// checkRecv validates the arguments of a receive or probe.
func (c *Comm) checkRecv(op string, src, tag int) error {
	if err := c.valid(op); err != nil {
		return err
	}
	if (src < 0 || src >= c.c.Size()) && src != ProcNull && src != AnySource {
		return c.errf(op, base.ErrRank, src, tag,
			fmt.Sprintf("source %d is not a rank of %s (0..%d)", src, c.c.Name(), c.c.Size()-1), "")
	}
	if (tag < 0 || tag > MaxTag) && tag != AnyTag {
		return c.errf(op, base.ErrTag, src, tag, fmt.Sprintf("tag %d is outside 0..%d", tag, MaxTag), "")
	}
	return nil
}

// procNullStatus is the status of a receive from ProcNull.
var procNullStatus = Status{Source: ProcNull, Tag: AnyTag}
