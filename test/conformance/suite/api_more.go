package suite

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gompi/gompi/gompi"
)

// Groups, communicators made from groups and by host, Cartesian grids,
// Sendrecv_replace, per-request errors, Testsome and Request.Free.
var apiMoreCases = []Case{
	{"SendrecvReplaceRing", ranks(1, 5), sendrecvReplaceRing},
	{"WaitallSaysWhichRequestFailed", []int{2, 3}, waitallPerRequestErrors},
	{"TestsomeAndFree", []int{2, 3}, testsomeAndFree},
	{"GroupOperations", ranks(1, 6), groupOperations},
	{"CommCreateFromGroup", ranks(1, 6), commCreateFromGroup},
	{"SplitTypeShared", ranks(1, 4), splitTypeShared},
	{"CartesianHalo", ranks(1, 6), cartesianHalo},
	{"NilIsNotInPlace", ranks(1, 4), nilIsNotInPlace},
}

func sendrecvReplaceRing(c *gompi.Comm) error {
	me, n := c.Rank(), c.Size()
	buf := []int64{int64(me), int64(me * 10)}
	st, err := gompi.SendrecvReplace(c, buf, (me+1)%n, 4, (me+n-1)%n, gompi.AnyTag)
	left := (me + n - 1) % n
	if err != nil || buf[0] != int64(left) || buf[1] != int64(left*10) || st.Source != left || st.Count != 16 {
		return fmt.Errorf("SendrecvReplace: %v %+v %v", buf, st, err)
	}
	// With ProcNull both ways: nothing moves.
	if _, err := c.SendrecvReplace([]byte{7}, gompi.ProcNull, 0, gompi.ProcNull, 0); err != nil {
		return err
	}
	return nil
}

func waitallPerRequestErrors(c *gompi.Comm) error {
	me, last := c.Rank(), c.Size()-1
	switch me {
	case 0:
		for _, n := range []int{4, 40, 4} {
			if err := c.Send(make([]byte, n), last, 2); err != nil {
				return err
			}
		}
	case last:
		reqs := make([]*gompi.Request, 3)
		for i := range reqs {
			var err error
			if reqs[i], err = c.Irecv(make([]byte, 8), 0, 2); err != nil {
				return err
			}
		}
		sts := make([]gompi.Status, 3)
		err := gompi.Waitall(reqs, sts)
		var re *gompi.RequestError
		all := gompi.RequestErrors(err)
		if !errors.Is(err, gompi.ErrTruncate) || !errors.As(err, &re) || re.Index != 1 || len(all) != 1 {
			return fmt.Errorf("Waitall with request 1 truncated: %v (first %+v, %d errors)", err, re, len(all))
		}
		if sts[0].Count != 4 || sts[1].Count != 8 || sts[2].Count != 4 {
			return fmt.Errorf("statuses %+v", sts)
		}
	}
	return c.Barrier()
}

func testsomeAndFree(c *gompi.Comm) error {
	me, last := c.Rank(), c.Size()-1
	switch me {
	case 0:
		// A freed send: its completion is learnt from the reply.
		r, err := c.Isend([]byte("free"), last, 3)
		if err != nil {
			return err
		}
		if err := r.Free(); err != nil {
			return err
		}
		if _, err := c.Recv(make([]byte, 1), last, 4); err != nil {
			return err
		}
		if err := c.Send([]byte{1}, last, 5); err != nil {
			return err
		}
	case last:
		b := make([]byte, 4)
		if _, err := c.Recv(b, 0, 3); err != nil || string(b) != "free" {
			return fmt.Errorf("message of a freed send: %q %v", b, err)
		}
		if err := c.Send([]byte{1}, 0, 4); err != nil {
			return err
		}
		reqs := make([]*gompi.Request, 2)
		var err error
		if reqs[0], err = c.Irecv(make([]byte, 1), 0, 5); err != nil {
			return err
		}
		if reqs[1], err = c.Irecv(make([]byte, 1), 0, 6); err != nil { // never sent: cancelled below
			return err
		}
		deadline := time.Now().Add(time.Minute)
		for reqs[0] != nil {
			idx, _, _, err := gompi.Testsome(reqs)
			if err != nil {
				return err
			}
			if len(idx) > 0 && !slices.Equal(idx, []int{0}) {
				return fmt.Errorf("Testsome completed %v, want [0]", idx)
			}
			if time.Now().After(deadline) {
				return errors.New("Testsome never completed the receive")
			}
		}
		if err := reqs[1].Cancel(); err != nil {
			return err
		}
		if idx, sts, done, err := gompi.Testsome(reqs); err != nil || !done || !slices.Equal(idx, []int{1}) || !sts[0].Cancelled {
			return fmt.Errorf("Testsome of a cancelled receive: %v %+v %v %v", idx, sts, done, err)
		}
		if idx, _, done, err := gompi.Testsome(reqs); err != nil || !done || len(idx) != 0 {
			return fmt.Errorf("Testsome of nothing: %v %v %v", idx, done, err)
		}
	}
	return c.Barrier()
}

func groupOperations(c *gompi.Comm) error {
	me, n := c.Rank(), c.Size()
	g := c.Group()
	if g.Size() != n || g.Rank() != me {
		return fmt.Errorf("Comm.Group: size %d rank %d", g.Size(), g.Rank())
	}
	var evens, odds []int
	for r := range n {
		if r%2 == 0 {
			evens = append(evens, r)
		} else {
			odds = append(odds, r)
		}
	}
	ev, err := g.Incl(evens)
	if err != nil {
		return err
	}
	od, err := g.Excl(evens)
	if err != nil {
		return err
	}
	if ev.Size() != len(evens) || od.Size() != len(odds) {
		return fmt.Errorf("Incl/Excl sizes %d %d", ev.Size(), od.Size())
	}
	wantRank := gompi.Undefined
	if me%2 == 0 {
		wantRank = me / 2
	}
	if ev.Rank() != wantRank {
		return fmt.Errorf("rank in the even group: %d, want %d", ev.Rank(), wantRank)
	}
	u := od.Union(ev)
	if u.Size() != n || u.Compare(g) != gompi.GroupSimilar && n > 1 || ev.Union(od).Compare(g) != gompi.GroupIdent && n <= 2 {
		return fmt.Errorf("union: size %d, compare %d", u.Size(), u.Compare(g))
	}
	if x := ev.Intersection(od); x.Size() != 0 || g.Difference(ev).Compare(od) != gompi.GroupIdent {
		return fmt.Errorf("intersection %d, difference %v", x.Size(), g.Difference(ev).WorldRanks())
	}
	tr, err := g.TranslateRanks([]int{0, n - 1, gompi.ProcNull}, ev)
	if err != nil {
		return err
	}
	wantLast := gompi.Undefined
	if (n-1)%2 == 0 {
		wantLast = (n - 1) / 2
	}
	if tr[0] != 0 || tr[1] != wantLast || tr[2] != gompi.ProcNull {
		return fmt.Errorf("TranslateRanks: %v", tr)
	}
	if _, err := g.Incl([]int{0, 0}); !errors.Is(err, gompi.ErrArg) {
		return fmt.Errorf("Incl of a repeated rank: %v", err)
	}
	if _, err := g.Excl([]int{n}); !errors.Is(err, gompi.ErrRank) {
		return fmt.Errorf("Excl of rank %d: %v", n, err)
	}
	return nil
}

func commCreateFromGroup(c *gompi.Comm) error {
	me, n := c.Rank(), c.Size()
	// The odd ranks, in reverse order.
	var odds []int
	for r := n - 1; r >= 0; r-- {
		if r%2 == 1 {
			odds = append(odds, r)
		}
	}
	g, err := c.Group().Incl(odds)
	if err != nil {
		return err
	}
	sub, err := c.Create(g)
	if err != nil {
		return err
	}
	if me%2 == 0 {
		if sub != nil {
			return errors.New("a rank outside the group got a communicator")
		}
		return c.Barrier()
	}
	defer sub.Free()
	if sub.Size() != len(odds) || sub.Rank() != slices.Index(odds, me) {
		return fmt.Errorf("created communicator: rank %d of %d", sub.Rank(), sub.Size())
	}
	sum := make([]int64, 1)
	if err := gompi.Allreduce(sub, []int64{int64(me)}, sum, gompi.Sum[int64]()); err != nil {
		return err
	}
	want := int64(0)
	for _, r := range odds {
		want += int64(r)
	}
	if sum[0] != want {
		return fmt.Errorf("sum over the created communicator: %d, want %d", sum[0], want)
	}
	return c.Barrier()
}

func splitTypeShared(c *gompi.Comm) error {
	sh, err := c.SplitType(gompi.SplitShared, -c.Rank())
	if err != nil {
		return err
	}
	defer sh.Free()
	host := c.HostOf(c.Rank())
	want := 0
	for r := range c.Size() {
		if c.HostOf(r) == host {
			want++
		}
	}
	if sh.Size() != want {
		return fmt.Errorf("shared communicator of %d ranks, %d on this host", sh.Size(), want)
	}
	for r := range sh.Size() {
		if sh.HostOf(r) != host {
			return fmt.Errorf("rank %d of the shared communicator is on %s, not %s", r, sh.HostOf(r), host)
		}
	}
	// key -rank: reversed order within the host.
	if sh.Size() > 1 && sh.WorldRank(0) < sh.WorldRank(sh.Size()-1) {
		return errors.New("the key did not order the shared communicator")
	}
	if none, err := c.SplitType(gompi.Undefined, 0); err != nil || none != nil {
		return fmt.Errorf("SplitType(Undefined): %v %v", none, err)
	}
	return nil
}

// cartesianHalo: a 2D periodic grid from DimsCreate; every rank exchanges
// its rank with its four neighbours (a halo exchange, as Jacobi codes do),
// then along a row through Sub.
func cartesianHalo(c *gompi.Comm) error {
	dims := []int{0, 0}
	if err := gompi.DimsCreate(c.Size(), dims); err != nil {
		return err
	}
	if dims[0]*dims[1] != c.Size() || dims[0] < dims[1] {
		return fmt.Errorf("DimsCreate(%d): %v", c.Size(), dims)
	}
	t, err := c.CartCreate(dims, []bool{true, false}, false)
	if err != nil {
		return err
	}
	defer t.Free()
	me := t.Rank()
	coords, err := t.CartCoords(me)
	if err != nil {
		return err
	}
	if r, err := t.CartRank(coords); err != nil || r != me {
		return fmt.Errorf("CartRank(CartCoords(%d)) = %d %v", me, r, err)
	}
	for dim := range 2 {
		src, dest, err := t.CartShift(dim, 1)
		if err != nil {
			return err
		}
		got := []int32{-1}
		st, err := gompi.Sendrecv(t.Comm, []int32{int32(me)}, dest, dim, got, src, dim)
		if err != nil {
			return err
		}
		if src == gompi.ProcNull {
			if st.Source != gompi.ProcNull || got[0] != -1 {
				return fmt.Errorf("dim %d: from ProcNull got %v %+v", dim, got, st)
			}
			if dim == 0 {
				return errors.New("a periodic dimension has an edge")
			}
			continue
		}
		want := slices.Clone(coords)
		want[dim]--
		wr, err := t.CartRank(want)
		if err != nil {
			return err
		}
		if int(got[0]) != wr || src != wr {
			return fmt.Errorf("dim %d: got %d from %d, want %d", dim, got[0], src, wr)
		}
	}
	row, err := t.Sub([]bool{false, true})
	if err != nil {
		return err
	}
	defer row.Free()
	if row.Size() != dims[1] || !slices.Equal(row.Dims(), dims[1:]) || row.Rank() != coords[1] {
		return fmt.Errorf("Sub: rank %d of %d, dims %v", row.Rank(), row.Size(), row.Dims())
	}
	// DimsCreate's fixed dimensions and errors.
	d3 := []int{0, 3, 0}
	if err := gompi.DimsCreate(12, d3); err != nil || !slices.Equal(d3, []int{2, 3, 2}) {
		return fmt.Errorf("DimsCreate(12, {0,3,0}) = %v %v", d3, err)
	}
	if err := gompi.DimsCreate(10, []int{3, 0}); !errors.Is(err, gompi.ErrArg) {
		return fmt.Errorf("DimsCreate(10, {3,0}): %v", err)
	}
	return nil
}

// nilIsNotInPlace: only InPlace means "in place"; a nil send buffer is an
// empty one, refused where the call needs data.
func nilIsNotInPlace(c *gompi.Comm) error {
	buf := vec(c.Rank(), 3)
	if err := gompi.Allreduce(c, nil, buf, gompi.Sum[int32]()); !errors.Is(err, gompi.ErrArg) {
		return fmt.Errorf("Allreduce with a nil send buffer: %v, want ErrArg", err)
	}
	if err := gompi.Allreduce(c, gompi.InPlace[int32](), buf, gompi.Sum[int32]()); err != nil {
		return err
	}
	for i, v := range buf {
		var want int32
		for r := range c.Size() {
			want += val(r, i)
		}
		if v != want {
			return fmt.Errorf("in place: element %d is %d, want %d", i, v, want)
		}
	}
	return nil
}
