package suite

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/gompi/gompi/gompi"
)

func init() {
	moreCases = append(moreCases, Case{"RootedTwoRanksBackToBack", []int{2}, rootedTwoRanks})
}

// rootedTwoRanks: two-rank rooted calls back to back (docs/PERFORMANCE.md,
// "Two ranks: the contributor's arrival without the root's word"): the
// rank that contributes arrives and leaves without reading its root's
// word, so the next call's wait for the open step is all that orders it.
// Reduce, Gather and Gatherv with the root changing from call to call, at
// sizes on the arrival lines, past them and in the scratch half, with other
// collectives and barriers in between or none, under the default
// selection. It runs with goroutine ranks (gompi's TestConformance) and as
// two processes (test/rooted2_test.go).
func rootedTwoRanks(c *gompi.Comm) error {
	for it := range 1500 {
		if err := rooted2Calls(c, it); err != nil {
			return err
		}
	}
	return nil
}

// rooted2Calls is call it of rootedTwoRanks.
func rooted2Calls(c *gompi.Comm, it int) error {
	me := c.Rank()
	sizes := []int{8, 64, 120, 121, 512, 4096}
	m := sizes[it%len(sizes)]
	root := (it / 2) % 2
	if it%5 == 3 {
		root = 1 - root
	}
	fail := func(op string, got, want any) error {
		return fmt.Errorf("call %d, %d B, root %d, rank %d: %s gave %v, want %v", it, m, root, me, op, got, want)
	}
	k := max(m/8, 1)
	ops := []struct {
		name string
		op   gompi.Op[int64]
		f    func(a, b int64) int64
	}{
		{"sum", gompi.Sum[int64](), func(a, b int64) int64 { return a + b }},
		{"max", gompi.Max[int64](), func(a, b int64) int64 { return max(a, b) }},
		{"min", gompi.Min[int64](), func(a, b int64) int64 { return min(a, b) }},
	}
	o := ops[it%len(ops)]
	vec := func(r int) []int64 {
		v := make([]int64, k)
		for i := range v {
			v[i] = int64((it*131+r*57+i*13)%97 - 40)
		}
		return v
	}
	out := make([]int64, k)
	if err := gompi.Reduce(c, vec(me), out, o.op, root); err != nil {
		return err
	}
	if me == root {
		want := vec(0)
		for i, x := range vec(1) {
			want[i] = o.f(want[i], x)
		}
		if !slices.Equal(out, want) {
			return fail("Reduce "+o.name, out, want)
		}
	}
	if it%4 == 1 {
		b := []int64{int64(it)}
		if err := gompi.Allreduce(c, []int64{int64(it + me)}, b, gompi.Sum[int64]()); err != nil {
			return err
		}
		if b[0] != int64(2*it+1) {
			return fail("Allreduce", b[0], 2*it+1)
		}
	}
	// Gather of m bytes per rank.
	block := func(r, n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(it*7 + r*31 + i*3 + 1)
		}
		return b
	}
	var recv []byte
	if me == root {
		recv = make([]byte, 2*m)
	}
	if err := c.Gather(block(me, m), recv, root); err != nil {
		return err
	}
	if want := append(block(0, m), block(1, m)...); me == root && !bytes.Equal(recv, want) {
		return fail("Gather", recv, want)
	}
	if it%3 == 2 {
		if err := c.Barrier(); err != nil {
			return err
		}
	}
	// Gatherv: rank r sends m - r*(m/3) bytes, placed after a gap.
	counts := []int{m, m - m/3}
	displs := []int{counts[1] + 5, 0}
	recv = nil
	if me == root {
		recv = make([]byte, counts[0]+counts[1]+5)
	}
	if err := c.Gatherv(block(me, counts[me]), recv, counts, displs, root); err != nil {
		return err
	}
	if me == root {
		want := make([]byte, len(recv))
		copy(want[displs[0]:], block(0, counts[0]))
		copy(want[displs[1]:], block(1, counts[1]))
		if !bytes.Equal(recv, want) {
			return fail("Gatherv", recv, want)
		}
	}
	if it%7 == 6 {
		b := make([]byte, m)
		if me == root {
			copy(b, block(9, m))
		}
		if err := c.Bcast(b, root); err != nil {
			return err
		}
		if !bytes.Equal(b, block(9, m)) {
			return fail("Bcast", b, block(9, m))
		}
	}
	return nil
}
