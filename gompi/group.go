package gompi

import (
	"fmt"
	"slices"

	"github.com/gompi/gompi/gompi/internal/backend"
	"github.com/gompi/gompi/gompi/internal/base"
)

// Group is an ordered set of ranks (MPI_Group), named by their world ranks:
// what a communicator's members are, without its message space. Groups are
// values; their operations make new ones and are local (no messages).
// Comm.Create makes a communicator of a group's ranks.
type Group struct {
	world []int // the members' world ranks, in group order
	me    int   // the calling rank's world rank
}

// Group returns c's members as a group, in c's rank order (MPI_Comm_group).
func (c *Comm) Group() Group {
	g := Group{world: make([]int, c.Size()), me: c.WorldRank(c.Rank())}
	for i := range g.world {
		g.world[i] = c.WorldRank(i)
	}
	return g
}

// Size returns the number of ranks in g.
func (g Group) Size() int { return len(g.world) }

// Rank returns the calling rank's rank in g, or Undefined if it is not a
// member (MPI_Group_rank).
func (g Group) Rank() int { return g.indexOf(g.me) }

// WorldRanks returns the world ranks of g's members, in group order.
func (g Group) WorldRanks() []int { return slices.Clone(g.world) }

func (g Group) indexOf(w int) int {
	if i := slices.Index(g.world, w); i >= 0 {
		return i
	}
	return Undefined
}

func (g Group) with(world []int) Group { return Group{world: world, me: g.me} }

// checkRanks refuses ranks outside g and repeated ones.
func (g Group) checkRanks(op string, ranks []int) error {
	seen := make(map[int]bool, len(ranks))
	for _, r := range ranks {
		if r < 0 || r >= len(g.world) {
			return base.New(op, base.ErrRank, fmt.Sprintf("rank %d is not in the group of %d", r, len(g.world)), "")
		}
		if seen[r] {
			return base.New(op, base.ErrArg, fmt.Sprintf("rank %d is listed twice", r), "list each rank once")
		}
		seen[r] = true
	}
	return nil
}

// Incl returns the group of g's ranks listed, in that order
// (MPI_Group_incl).
func (g Group) Incl(ranks []int) (Group, error) {
	if err := g.checkRanks("Group.Incl", ranks); err != nil {
		return Group{}, err
	}
	w := make([]int, len(ranks))
	for i, r := range ranks {
		w[i] = g.world[r]
	}
	return g.with(w), nil
}

// Excl returns g without the ranks listed, in g's order (MPI_Group_excl).
func (g Group) Excl(ranks []int) (Group, error) {
	if err := g.checkRanks("Group.Excl", ranks); err != nil {
		return Group{}, err
	}
	var w []int
	for i, x := range g.world {
		if !slices.Contains(ranks, i) {
			w = append(w, x)
		}
	}
	return g.with(w), nil
}

// Union returns the ranks of g, then those of h not in g
// (MPI_Group_union).
func (g Group) Union(h Group) Group {
	w := slices.Clone(g.world)
	for _, x := range h.world {
		if !slices.Contains(g.world, x) {
			w = append(w, x)
		}
	}
	return g.with(w)
}

// Intersection returns the ranks of g that are in h, in g's order
// (MPI_Group_intersection).
func (g Group) Intersection(h Group) Group {
	var w []int
	for _, x := range g.world {
		if slices.Contains(h.world, x) {
			w = append(w, x)
		}
	}
	return g.with(w)
}

// Difference returns the ranks of g that are not in h, in g's order
// (MPI_Group_difference).
func (g Group) Difference(h Group) Group {
	var w []int
	for _, x := range g.world {
		if !slices.Contains(h.world, x) {
			w = append(w, x)
		}
	}
	return g.with(w)
}

// TranslateRanks returns, for each rank of g listed, its rank in h, or
// Undefined where it is not in h (MPI_Group_translate_ranks). ProcNull
// stays ProcNull.
func (g Group) TranslateRanks(ranks []int, h Group) ([]int, error) {
	out := make([]int, len(ranks))
	for i, r := range ranks {
		switch {
		case r == ProcNull:
			out[i] = ProcNull
		case r < 0 || r >= len(g.world):
			return nil, base.New("Group.TranslateRanks", base.ErrRank, fmt.Sprintf("rank %d is not in the group of %d", r, len(g.world)), "")
		default:
			out[i] = h.indexOf(g.world[r])
		}
	}
	return out, nil
}

// Results of Group.Compare (MPI_IDENT, MPI_SIMILAR, MPI_UNEQUAL).
const (
	GroupIdent   = 0 // the same ranks in the same order
	GroupSimilar = 1 // the same ranks in another order
	GroupUnequal = 2
)

// Compare says whether g and h have the same ranks in the same order
// (GroupIdent), in another order (GroupSimilar), or not (GroupUnequal)
// (MPI_Group_compare).
func (g Group) Compare(h Group) int {
	switch {
	case slices.Equal(g.world, h.world):
		return GroupIdent
	case len(g.world) == len(h.world) && len(g.Intersection(h).world) == len(g.world):
		return GroupSimilar
	}
	return GroupUnequal
}

// Create makes a communicator of the ranks of g, a subset of c's, in g's
// order (MPI_Comm_create). Every rank of c must call it with the same
// group; ranks outside g get nil.
func (c *Comm) Create(g Group) (*Comm, error) {
	if err := c.valid("Comm.Create"); err != nil {
		return nil, err
	}
	members := c.Group()
	for _, w := range g.world {
		if members.indexOf(w) == Undefined {
			return nil, c.errf("Comm.Create", base.ErrArg, -1, -1,
				fmt.Sprintf("world rank %d of the group is not a member of %s", w, c.c.Name()), "make the group from the communicator's own (c.Group())")
		}
	}
	color, key := Undefined, 0
	if i := g.indexOf(members.me); i != Undefined {
		color, key = 0, i
	}
	return c.split(RoutineCommCreate, color, key)
}

// CreateGroup makes a communicator of the ranks of g, a subset of c's, in
// g's order (MPI_Comm_create_group). Unlike Create, only the members of g
// call it: the other ranks of c go on with their work. tag (0..MaxTag)
// tells apart calls on c that run at the same time from several
// goroutines of the same ranks; calls by disjoint groups need no distinct
// tags. A rank that is not in g gets nil at once. Calls whose groups share
// ranks must be made in the same order by those ranks.
func (c *Comm) CreateGroup(g Group, tag int) (*Comm, error) {
	if err := c.valid("Comm.CreateGroup"); err != nil {
		return nil, err
	}
	if tag < 0 || tag > MaxTag {
		return nil, c.errf("Comm.CreateGroup", base.ErrTag, -1, tag, fmt.Sprintf("tag %d is outside 0..%d", tag, MaxTag), "")
	}
	rankOf := make(map[int]int, c.Size())
	for r := range c.Size() {
		rankOf[c.WorldRank(r)] = r
	}
	ranks := make([]int, len(g.world))
	for i, w := range g.world {
		r, ok := rankOf[w]
		if !ok {
			return nil, c.errf("Comm.CreateGroup", base.ErrArg, -1, tag,
				fmt.Sprintf("world rank %d of the group is not a member of %s", w, c.c.Name()), "make the group from the communicator's own (c.Group())")
		}
		ranks[i] = r
	}
	if g.Rank() == Undefined {
		return nil, nil
	}
	var nc *backend.Comm
	err := c.traced(RoutineCommCreateGroup, -1, tag, -1, func() (err error) { nc, err = c.c.CreateGroup(ranks, tag); return })
	if err != nil || nc == nil {
		return nil, err
	}
	d := newComm(c.r, nc)
	d.tid = c.groupChildID(g, tag)
	c.colls.copyTo(&d.colls)
	return d, nil
}

// SplitShared is the kind of SplitType that groups the ranks of one host
// (MPI_COMM_TYPE_SHARED): they can share memory.
const SplitShared = 1

// SplitType partitions c by kind (MPI_Comm_split_type): with SplitShared,
// one communicator per host, ordered by key (ties by rank in c); a rank
// that passes Undefined joins none and gets nil. Every member must call it.
func (c *Comm) SplitType(kind, key int) (*Comm, error) {
	if err := c.valid("Comm.SplitType"); err != nil {
		return nil, err
	}
	switch kind {
	case Undefined:
		return c.split(RoutineCommSplitType, Undefined, key)
	case SplitShared:
	default:
		return nil, c.errf("Comm.SplitType", base.ErrArg, -1, -1, fmt.Sprintf("split kind %d", kind), "use gompi.SplitShared")
	}
	// The color is the lowest rank of c on this host: every rank computes
	// the same from the job's host map, with no message.
	host := c.HostOf(c.Rank())
	color := c.Rank()
	for r := range c.Size() {
		if c.HostOf(r) == host {
			color = r
			break
		}
	}
	return c.split(RoutineCommSplitType, color, key)
}
