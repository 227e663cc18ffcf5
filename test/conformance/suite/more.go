package suite

import (
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"github.com/gompi/gompi/gompi"
)

// Cases beyond the collectives checkColls covers: the vector forms, every
// in-place form, every nonblocking form (several in flight at once), the
// predefined operators on every element kind, and a non-commutative operator
// through every reduction. A backend that translates calls for a library (the
// MPI backend builds count arrays, datatypes and operators for each call)
// has most to get wrong here.
var moreCases = []Case{
	{"VectorCollectives", []int{1, 3, 4, 7}, vectorCollectives},
	{"InPlaceCollectives", []int{1, 3, 4, 7}, inPlaceCollectives},
	{"NonblockingCollectivesEveryForm", []int{1, 3, 4, 7}, nonblockingEveryForm},
	{"PredefinedOperators", []int{1, 3, 5}, predefinedOperators},
	{"NonCommutativeReductions", []int{1, 2, 3, 6}, nonCommutativeReductions},
}

// layout gives block i (i = 0..p-1) count(i) elements, laid out in reverse
// order with a gap of one element before each, so that displacements matter.
func layout(p int, count func(i int) int) (counts, displs []int, total int) {
	counts, displs = make([]int, p), make([]int, p)
	for i := p - 1; i >= 0; i-- {
		total++ // the gap
		counts[i], displs[i] = count(i), total
		total += counts[i]
	}
	return counts, displs, total
}

// cell is the element rank `from` sends rank `to` at index k.
func cell(from, to, k int) int32 { return int32(from*10000 + to*100 + k) }

// collective is one call of a form check: run makes the call (blocking, or
// nonblocking returning its request), check verifies the result afterwards.
type collective struct {
	name  string
	run   func(nonblocking bool) (*gompi.Request, error)
	check func() error
}

// runForms makes every call blocking and checks it, then starts them all
// nonblocking, waits for all at once, and checks them again.
func runForms(mk func() []collective) error {
	for _, nb := range []bool{false, true} {
		calls := mk()
		var reqs []*gompi.Request
		for _, x := range calls {
			r, err := x.run(nb)
			if err != nil {
				return fmt.Errorf("%s (nonblocking %v): %w", x.name, nb, err)
			}
			if nb {
				reqs = append(reqs, r)
			} else if err := x.check(); err != nil {
				return fmt.Errorf("%s: %w", x.name, err)
			}
		}
		if !nb {
			continue
		}
		if err := gompi.Waitall(reqs, nil); err != nil {
			return err
		}
		for _, x := range calls {
			if err := x.check(); err != nil {
				return fmt.Errorf("%s (nonblocking): %w", x.name, err)
			}
		}
	}
	return nil
}

func want(got, exp []int32) error {
	if !slices.Equal(got, exp) {
		return fmt.Errorf("got %v..., want %v...", head(got), head(exp))
	}
	return nil
}

func vectorCollectives(c *gompi.Comm) error {
	p, me := c.Size(), c.Rank()
	root := p / 2
	k := 5
	return runForms(func() []collective {
		var calls []collective
		// Gatherv: rank i sends (i%3+1)*k elements.
		counts, displs, total := layout(p, func(i int) int { return (i%3 + 1) * k })
		gsend := make([]int32, counts[me])
		for j := range gsend {
			gsend[j] = cell(me, root, j)
		}
		grecv := make([]int32, total)
		calls = append(calls, collective{"Gatherv",
			func(nb bool) (*gompi.Request, error) {
				if nb {
					return c.Igatherv(bs(gsend), bs(grecv), x4(counts), x4(displs), root)
				}
				return nil, gompi.Gatherv(c, gsend, grecv, counts, displs, root)
			},
			func() error {
				if me != root {
					return nil
				}
				for i := 0; i < p; i++ {
					exp := make([]int32, counts[i])
					for j := range exp {
						exp[j] = cell(i, root, j)
					}
					if err := want(grecv[displs[i]:][:counts[i]], exp); err != nil {
						return fmt.Errorf("block of rank %d: %w", i, err)
					}
				}
				return nil
			}})
		// Scatterv: the inverse.
		ssend := make([]int32, total)
		if me == root {
			for i := 0; i < p; i++ {
				for j := 0; j < counts[i]; j++ {
					ssend[displs[i]+j] = cell(root, i, j)
				}
			}
		}
		srecv := make([]int32, counts[me])
		calls = append(calls, collective{"Scatterv",
			func(nb bool) (*gompi.Request, error) {
				if nb {
					return c.Iscatterv(bs(ssend), x4(counts), x4(displs), bs(srecv), root)
				}
				return nil, gompi.Scatterv(c, ssend, counts, displs, srecv, root)
			},
			func() error {
				exp := make([]int32, counts[me])
				for j := range exp {
					exp[j] = cell(root, me, j)
				}
				return want(srecv, exp)
			}})
		// Allgatherv.
		arecv := make([]int32, total)
		asend := make([]int32, counts[me])
		for j := range asend {
			asend[j] = cell(me, 0, j)
		}
		calls = append(calls, collective{"Allgatherv",
			func(nb bool) (*gompi.Request, error) {
				if nb {
					return c.Iallgatherv(bs(asend), bs(arecv), x4(counts), x4(displs))
				}
				return nil, gompi.Allgatherv(c, asend, arecv, counts, displs)
			},
			func() error {
				for i := 0; i < p; i++ {
					exp := make([]int32, counts[i])
					for j := range exp {
						exp[j] = cell(i, 0, j)
					}
					if err := want(arecv[displs[i]:][:counts[i]], exp); err != nil {
						return fmt.Errorf("block of rank %d: %w", i, err)
					}
				}
				return nil
			}})
		// Alltoallv and Alltoallw: rank i sends ((i+j)%3+1)*k elements to j.
		pair := func(i, j int) int { return ((i+j)%3 + 1) * k }
		scounts, sdispls, stotal := layout(p, func(j int) int { return pair(me, j) })
		rcounts, rdispls, rtotal := layout(p, func(i int) int { return pair(i, me) })
		vsend := make([]int32, stotal)
		for j := 0; j < p; j++ {
			for x := 0; x < scounts[j]; x++ {
				vsend[sdispls[j]+x] = cell(me, j, x)
			}
		}
		checkV := func(recv []int32) func() error {
			return func() error {
				for i := 0; i < p; i++ {
					exp := make([]int32, rcounts[i])
					for x := range exp {
						exp[x] = cell(i, me, x)
					}
					if err := want(recv[rdispls[i]:][:rcounts[i]], exp); err != nil {
						return fmt.Errorf("block from rank %d: %w", i, err)
					}
				}
				return nil
			}
		}
		vrecv := make([]int32, rtotal)
		calls = append(calls, collective{"Alltoallv",
			func(nb bool) (*gompi.Request, error) {
				if nb {
					return c.Ialltoallv(bs(vsend), x4(scounts), x4(sdispls), bs(vrecv), x4(rcounts), x4(rdispls))
				}
				return nil, gompi.Alltoallv(c, vsend, scounts, sdispls, vrecv, rcounts, rdispls)
			}, checkV(vrecv)})
		// Alltoallw takes bytes.
		wrecv := make([]int32, rtotal)
		b := x4
		wsend, wrecvb := bs(vsend), bs(wrecv)
		calls = append(calls, collective{"Alltoallw",
			func(nb bool) (*gompi.Request, error) {
				if nb {
					return c.Ialltoallw(wsend, b(scounts), b(sdispls), wrecvb, b(rcounts), b(rdispls))
				}
				return nil, c.Alltoallw(wsend, b(scounts), b(sdispls), wrecvb, b(rcounts), b(rdispls))
			}, checkV(wrecv)})
		// ReduceScatter: rank i gets (i%3+1)*k elements of the sum.
		rsCounts := make([]int, p)
		rsTotal := 0
		for i := range rsCounts {
			rsCounts[i] = (i%3 + 1) * k
			rsTotal += rsCounts[i]
		}
		rsSend := vec(me, rsTotal)
		rsRecv := make([]int32, rsCounts[me])
		calls = append(calls, collective{"ReduceScatter",
			func(nb bool) (*gompi.Request, error) {
				if nb {
					return c.IreduceScatter(bs(rsSend), bs(rsRecv), x4(rsCounts), gompi.Sum[int32]())
				}
				return nil, gompi.ReduceScatter(c, rsSend, rsRecv, rsCounts, gompi.Sum[int32]())
			},
			func() error {
				off := 0
				for i := 0; i < me; i++ {
					off += rsCounts[i]
				}
				exp := make([]int32, rsCounts[me])
				for j := range exp {
					for r := 0; r < p; r++ {
						exp[j] += val(r, off+j)
					}
				}
				return want(rsRecv, exp)
			}})
		return calls
	})
}

// bs views v as bytes (nil stays nil, InPlace[T]() becomes InPlace[byte]()).
func bs[T any](v []T) []byte {
	if v == nil {
		return nil
	}
	if len(v) == 0 && cap(v) == 0 && unsafe.SliceData(v) == unsafe.SliceData(gompi.InPlace[T]()) {
		return gompi.InPlace[byte]()
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*int(unsafe.Sizeof(*new(T))))
}

// x4 scales counts of int32 elements to bytes.
func x4(xs []int) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = 4 * x
	}
	return out
}

func inPlaceCollectives(c *gompi.Comm) error {
	p, me := c.Size(), c.Rank()
	root := p - 1
	n := 6
	sum := func(i, upto int) int32 {
		var s int32
		for r := 0; r < upto; r++ {
			s += val(r, i)
		}
		return s
	}
	return runForms(func() []collective {
		var calls []collective
		// Reduce in place at the root.
		red := vec(me, n)
		redSend := gompi.InPlace[int32]()
		if me != root {
			redSend = vec(me, n)
		}
		calls = append(calls, collective{"Reduce in place",
			func(nb bool) (*gompi.Request, error) {
				if nb {
					return gompi.Ireduce(c, redSend, red, gompi.Sum[int32](), root)
				}
				return nil, gompi.Reduce(c, redSend, red, gompi.Sum[int32](), root)
			},
			func() error {
				if me != root {
					return nil
				}
				exp := make([]int32, n)
				for i := range exp {
					exp[i] = sum(i, p)
				}
				return want(red, exp)
			}})
		// Gather in place at the root: its block is already in recv.
		g := make([]int32, n*p)
		var gSend []int32
		if me == root {
			gSend = gompi.InPlace[int32]()
			copy(g[me*n:], vec(me, n))
		} else {
			gSend = vec(me, n)
		}
		calls = append(calls, collective{"Gather in place",
			func(nb bool) (*gompi.Request, error) {
				if nb {
					return c.Igather(bs(gSend), bs(g), root)
				}
				return nil, gompi.Gather(c, gSend, g, root)
			},
			func() error {
				if me != root {
					return nil
				}
				for r := 0; r < p; r++ {
					if err := want(g[r*n:(r+1)*n], vec(r, n)); err != nil {
						return fmt.Errorf("block %d: %w", r, err)
					}
				}
				return nil
			}})
		// Scatter in place at the root: its block stays in send.
		sc := make([]int32, n*p)
		var scRecv []int32
		if me == root {
			scRecv = gompi.InPlace[int32]()
			for r := 0; r < p; r++ {
				copy(sc[r*n:], vec(r, n))
			}
		} else {
			scRecv = make([]int32, n)
		}
		calls = append(calls, collective{"Scatter in place",
			func(nb bool) (*gompi.Request, error) {
				if nb {
					return c.Iscatter(bs(sc), bs(scRecv), root)
				}
				return nil, gompi.Scatter(c, sc, scRecv, root)
			},
			func() error {
				if me == root {
					return want(sc[me*n:(me+1)*n], vec(me, n))
				}
				return want(scRecv, vec(me, n))
			}})
		// Allgather, Alltoall, ReduceScatterBlock, Scan and Exscan in place.
		ag := make([]int32, n*p)
		copy(ag[me*n:], vec(me, n))
		calls = append(calls, collective{"Allgather in place",
			func(nb bool) (*gompi.Request, error) {
				if nb {
					return gompi.Iallgather(c, gompi.InPlace[int32](), ag)
				}
				return nil, gompi.Allgather(c, gompi.InPlace[int32](), ag)
			},
			func() error {
				for r := 0; r < p; r++ {
					if err := want(ag[r*n:(r+1)*n], vec(r, n)); err != nil {
						return fmt.Errorf("block %d: %w", r, err)
					}
				}
				return nil
			}})
		at := make([]int32, n*p)
		for j := 0; j < p; j++ {
			for x := 0; x < n; x++ {
				at[j*n+x] = cell(me, j, x)
			}
		}
		calls = append(calls, collective{"Alltoall in place",
			func(nb bool) (*gompi.Request, error) {
				if nb {
					return gompi.Ialltoall(c, gompi.InPlace[int32](), at)
				}
				return nil, gompi.Alltoall(c, gompi.InPlace[int32](), at)
			},
			func() error {
				for i := 0; i < p; i++ {
					for x := 0; x < n; x++ {
						if at[i*n+x] != cell(i, me, x) {
							return fmt.Errorf("block from %d: got %d, want %d", i, at[i*n+x], cell(i, me, x))
						}
					}
				}
				return nil
			}})
		rsb := vec(me, n*p)
		calls = append(calls, collective{"ReduceScatterBlock in place",
			func(nb bool) (*gompi.Request, error) {
				if nb {
					return c.IreduceScatterBlock(gompi.InPlace[byte](), bs(rsb), gompi.Sum[int32]())
				}
				return nil, gompi.ReduceScatterBlock(c, gompi.InPlace[int32](), rsb, gompi.Sum[int32]())
			},
			func() error {
				exp := make([]int32, n)
				for i := range exp {
					exp[i] = sum(me*n+i, p)
				}
				return want(rsb[:n], exp)
			}})
		sc2 := vec(me, n)
		calls = append(calls, collective{"Scan in place",
			func(nb bool) (*gompi.Request, error) {
				if nb {
					return c.Iscan(gompi.InPlace[byte](), bs(sc2), gompi.Sum[int32]())
				}
				return nil, gompi.Scan(c, gompi.InPlace[int32](), sc2, gompi.Sum[int32]())
			},
			func() error {
				exp := make([]int32, n)
				for i := range exp {
					exp[i] = sum(i, me+1)
				}
				return want(sc2, exp)
			}})
		ex := vec(me, n)
		calls = append(calls, collective{"Exscan in place",
			func(nb bool) (*gompi.Request, error) {
				if nb {
					return c.Iexscan(gompi.InPlace[byte](), bs(ex), gompi.Sum[int32]())
				}
				return nil, gompi.Exscan(c, gompi.InPlace[int32](), ex, gompi.Sum[int32]())
			},
			func() error {
				if me == 0 {
					return want(ex, vec(0, n)) // rank 0's recv is left as it was
				}
				exp := make([]int32, n)
				for i := range exp {
					exp[i] = sum(i, me)
				}
				return want(ex, exp)
			}})
		// Exscan not in place: rank 0's recv is left as it was too.
		ex2 := []int32{-1, -2, -3}
		calls = append(calls, collective{"Exscan",
			func(nb bool) (*gompi.Request, error) {
				if nb {
					return c.Iexscan(bs(vec(me, 3)), bs(ex2), gompi.Sum[int32]())
				}
				return nil, gompi.Exscan(c, vec(me, 3), ex2, gompi.Sum[int32]())
			},
			func() error {
				if me == 0 {
					return want(ex2, []int32{-1, -2, -3})
				}
				return want(ex2, []int32{sum(0, me), sum(1, me), sum(2, me)})
			}})
		return calls
	})
}

// nonblockingEveryForm starts each collective nonblocking, all at once, in
// one order on every rank, and checks each against its blocking form.
func nonblockingEveryForm(c *gompi.Comm) error {
	p, me := c.Size(), c.Rank()
	n, root := 9, p/2
	type pair struct {
		name       string
		start      func() (*gompi.Request, error)
		blocking   func() error
		got, wantv []int32
	}
	mk := func() (got, exp []int32) { return make([]int32, n*p), make([]int32, n*p) }
	var pairs []pair
	add := func(name string, start func(out []int32) (*gompi.Request, error), block func(out []int32) error) {
		got, exp := mk()
		pairs = append(pairs, pair{name, func() (*gompi.Request, error) { return start(got) },
			func() error { return block(exp) }, got, exp})
	}
	mine := vec(me, n)
	all := vec(me, n*p)
	add("Ibarrier", func([]int32) (*gompi.Request, error) { return c.Ibarrier() },
		func([]int32) error { return c.Barrier() })
	add("Ibcast", func(out []int32) (*gompi.Request, error) {
		if me == root {
			copy(out, all)
		}
		return gompi.Ibcast(c, out, root)
	}, func(out []int32) error {
		if me == root {
			copy(out, all)
		}
		return gompi.Bcast(c, out, root)
	})
	add("Ireduce", func(out []int32) (*gompi.Request, error) {
		return gompi.Ireduce(c, all, out, gompi.Max[int32](), root)
	}, func(out []int32) error { return gompi.Reduce(c, all, out, gompi.Max[int32](), root) })
	add("Iallreduce", func(out []int32) (*gompi.Request, error) {
		return gompi.Iallreduce(c, all, out, gompi.Sum[int32]())
	}, func(out []int32) error { return gompi.Allreduce(c, all, out, gompi.Sum[int32]()) })
	add("Igather", func(out []int32) (*gompi.Request, error) { return c.Igather(bs(mine), bs(out), root) },
		func(out []int32) error { return gompi.Gather(c, mine, out, root) })
	add("Iscatter", func(out []int32) (*gompi.Request, error) { return c.Iscatter(bs(all), bs(out[:n]), root) },
		func(out []int32) error { return gompi.Scatter(c, all, out[:n], root) })
	add("Iallgather", func(out []int32) (*gompi.Request, error) { return gompi.Iallgather(c, mine, out) },
		func(out []int32) error { return gompi.Allgather(c, mine, out) })
	add("Ialltoall", func(out []int32) (*gompi.Request, error) { return gompi.Ialltoall(c, all, out) },
		func(out []int32) error { return gompi.Alltoall(c, all, out) })
	add("IreduceScatterBlock", func(out []int32) (*gompi.Request, error) {
		return c.IreduceScatterBlock(bs(all), bs(out[:n]), gompi.Sum[int32]())
	}, func(out []int32) error { return gompi.ReduceScatterBlock(c, all, out[:n], gompi.Sum[int32]()) })
	add("Iscan", func(out []int32) (*gompi.Request, error) { return c.Iscan(bs(mine), bs(out[:n]), gompi.Min[int32]()) },
		func(out []int32) error { return gompi.Scan(c, mine, out[:n], gompi.Min[int32]()) })
	add("Iexscan", func(out []int32) (*gompi.Request, error) { return c.Iexscan(bs(mine), bs(out[:n]), gompi.Sum[int32]()) },
		func(out []int32) error { return gompi.Exscan(c, mine, out[:n], gompi.Sum[int32]()) })
	reqs := make([]*gompi.Request, len(pairs))
	for i, x := range pairs {
		r, err := x.start()
		if err != nil {
			return fmt.Errorf("%s: %w", x.name, err)
		}
		reqs[i] = r
	}
	// Complete them by Testall, then Waitany, then Waitall, as they come.
	done := false
	for tries := 0; tries < 3 && !done; tries++ {
		var err error
		if done, err = gompi.Testall(reqs, nil); err != nil {
			return err
		}
	}
	if !done {
		if i, _, err := gompi.Waitany(reqs); err != nil || i == gompi.Undefined {
			return fmt.Errorf("Waitany: %d, %v", i, err)
		}
		if err := gompi.Waitall(reqs, nil); err != nil {
			return err
		}
	}
	for _, x := range pairs {
		if err := x.blocking(); err != nil {
			return fmt.Errorf("%s, blocking: %w", x.name, err)
		}
		if err := want(x.got, x.wantv); err != nil {
			return fmt.Errorf("%s differs from its blocking form: %w", x.name, err)
		}
	}
	return nil
}

type myInt int32

// predefinedOperators reduces with every predefined operator on element
// kinds it applies to (over MPI they map onto MPI's operators and types,
// named types included), each against a local reference.
func predefinedOperators(c *gompi.Comm) error {
	p, me := c.Size(), c.Rank()
	var errs []error
	check := func(name string, err error, ok bool) {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		} else if !ok {
			errs = append(errs, fmt.Errorf("%s: wrong result", name))
		}
	}
	{
		in := []float64{float64(me) + 0.5, -float64(me)}
		out := make([]float64, 2)
		err := gompi.Allreduce(c, in, out, gompi.Sum[float64]())
		check("sum[float64]", err, out[0] == float64(p*(p-1)/2)+0.5*float64(p) && out[1] == -float64(p*(p-1)/2))
	}
	{
		in := []float32{float32(me), float32(-me)}
		out := make([]float32, 2)
		err := gompi.Allreduce(c, in, out, gompi.Max[float32]())
		check("max[float32]", err, out[0] == float32(p-1) && out[1] == 0)
	}
	{
		in := []int64{int64(me) - 1<<40}
		out := make([]int64, 1)
		err := gompi.Allreduce(c, in, out, gompi.Min[int64]())
		check("min[int64]", err, out[0] == -1<<40)
	}
	{
		in := []uint16{uint16(1 << me)}
		out := make([]uint16, 1)
		err := gompi.Allreduce(c, in, out, gompi.BXor[uint16]())
		check("bxor[uint16]", err, out[0] == uint16(1<<p-1))
	}
	{
		in := []uint8{uint8(me%2 + 1)}
		out := make([]uint8, 1)
		err := gompi.Allreduce(c, in, out, gompi.BOr[uint8]())
		exp := uint8(1)
		if p > 1 {
			exp = 3
		}
		check("bor[uint8]", err, out[0] == exp)
	}
	{
		in := []int8{int8(me + 1)}
		exp := int8(1)
		if p > 1 && me == p-1 {
			in[0] = 0 // one false makes the and false
		}
		if p > 1 {
			exp = 0
		}
		out := make([]int8, 1)
		err := gompi.Allreduce(c, in, out, gompi.LAnd[int8]())
		check("land[int8]", err, out[0] == exp)
	}
	{
		in := []int{me}
		out := make([]int, 1)
		err := gompi.Allreduce(c, in, out, gompi.LOr[int]())
		exp := 0
		if p > 1 {
			exp = 1
		}
		check("lor[int]", err, out[0] == exp)
	}
	{
		in := []complex128{complex(0, 1)}
		out := make([]complex128, 1)
		err := gompi.Allreduce(c, in, out, gompi.Prod[complex128]())
		exp := complex(1, 0)
		for r := 0; r < p; r++ {
			exp *= complex(0, 1)
		}
		check("prod[complex128]", err, out[0] == exp)
	}
	{
		in := []myInt{myInt(me + 1)}
		out := make([]myInt, 1)
		err := gompi.Allreduce(c, in, out, gompi.Sum[myInt]())
		check("sum[myInt]", err, out[0] == myInt(p*(p+1)/2))
	}
	{
		in := []gompi.ValueIndex[float64]{{Value: float64((me * 7) % p), Index: me}}
		out := make([]gompi.ValueIndex[float64], 1)
		err := gompi.Allreduce(c, in, out, gompi.MaxLoc[float64]())
		best := 0
		for r := 0; r < p; r++ {
			if (r*7)%p > (best*7)%p {
				best = r
			}
		}
		check("maxloc[float64]", err, out[0].Index == best && out[0].Value == float64((best*7)%p))
	}
	return errors.Join(errs...)
}

// affine is x ↦ a·x + b; composing them does not commute.
type affine struct{ A, B int64 }

// then is f∘g (f after g) as a reduction: in is the lower ranks' part.
var compose = gompi.NewOp("compose", false, func(in, inout []affine) {
	for i := range inout {
		f, g := in[i], inout[i]
		inout[i] = affine{f.A * g.A, f.A*g.B + f.B}
	}
})

// nonCommutativeReductions runs a non-commutative user operator through
// every reduction: results must combine in rank order.
func nonCommutativeReductions(c *gompi.Comm) error {
	p, me := c.Size(), c.Rank()
	elem := func(r, i int) affine { return affine{int64(2 + (r+i)%2), int64(r - i)} }
	mine := func(n int) []affine {
		v := make([]affine, n)
		for i := range v {
			v[i] = elem(me, i)
		}
		return v
	}
	fold := func(lo, hi, i int) affine { // v_lo ∘ … ∘ v_hi-1
		acc := elem(lo, i)
		for r := lo + 1; r < hi; r++ {
			g := elem(r, i)
			acc = affine{acc.A * g.A, acc.A*g.B + acc.B}
		}
		return acc
	}
	n := 4
	root := p - 1
	red := make([]affine, n)
	if err := gompi.Reduce(c, mine(n), red, compose, root); err != nil {
		return err
	}
	all := make([]affine, n)
	if err := gompi.Allreduce(c, mine(n), all, compose); err != nil {
		return err
	}
	scan := make([]affine, n)
	if err := gompi.Scan(c, mine(n), scan, compose); err != nil {
		return err
	}
	ex := make([]affine, n)
	if err := gompi.Exscan(c, mine(n), ex, compose); err != nil {
		return err
	}
	rsb := make([]affine, 2)
	if err := gompi.ReduceScatterBlock(c, mine(2*p), rsb, compose); err != nil {
		return err
	}
	r, err := gompi.Iallreduce(c, mine(n), make([]affine, n), compose)
	if err != nil {
		return err
	}
	if _, err := r.Wait(); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if me == root && red[i] != fold(0, p, i) {
			return fmt.Errorf("Reduce[%d] = %v, want %v", i, red[i], fold(0, p, i))
		}
		if all[i] != fold(0, p, i) {
			return fmt.Errorf("Allreduce[%d] = %v, want %v", i, all[i], fold(0, p, i))
		}
		if scan[i] != fold(0, me+1, i) {
			return fmt.Errorf("Scan[%d] = %v, want %v", i, scan[i], fold(0, me+1, i))
		}
		if me > 0 && ex[i] != fold(0, me, i) {
			return fmt.Errorf("Exscan[%d] = %v, want %v", i, ex[i], fold(0, me, i))
		}
	}
	for i := 0; i < 2; i++ {
		if w := fold(0, p, 2*me+i); rsb[i] != w {
			return fmt.Errorf("ReduceScatterBlock[%d] = %v, want %v", i, rsb[i], w)
		}
	}
	return nil
}
