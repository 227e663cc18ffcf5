package gompi

import (
	"fmt"
	"slices"

	"github.com/gompi/gompi/gompi/internal/base"
)

// DimsCreate fills the zero entries of dims so that the product of dims is
// nnodes, as balanced as it can, larger dimensions first (MPI_Dims_create):
// DimsCreate(12, []int{0, 0}) makes dims {4, 3}. Nonzero entries are kept;
// nnodes must be a multiple of their product.
func DimsCreate(nnodes int, dims []int) error {
	fixed, free := 1, 0
	for _, d := range dims {
		switch {
		case d < 0:
			return base.New("DimsCreate", base.ErrArg, fmt.Sprintf("dimension %d is negative", d), "")
		case d == 0:
			free++
		default:
			fixed *= d
		}
	}
	if nnodes < 1 || nnodes%fixed != 0 {
		return base.New("DimsCreate", base.ErrArg,
			fmt.Sprintf("%d nodes cannot be split with the fixed dimensions %v", nnodes, dims), "")
	}
	left := nnodes / fixed
	if free == 0 {
		if left != 1 {
			return base.New("DimsCreate", base.ErrArg, fmt.Sprintf("the dimensions %v do not make %d nodes", dims, nnodes), "")
		}
		return nil
	}
	// Prime factors, largest first, each to the smallest dimension so far.
	var factors []int
	for p := 2; p*p <= left; p++ {
		for left%p == 0 {
			factors = append(factors, p)
			left /= p
		}
	}
	if left > 1 {
		factors = append(factors, left)
	}
	made := make([]int, free)
	for i := range made {
		made[i] = 1
	}
	for i := len(factors) - 1; i >= 0; i-- {
		made[0] *= factors[i]
		slices.Sort(made)
	}
	slices.Reverse(made)
	j := 0
	for i, d := range dims {
		if d == 0 {
			dims[i] = made[j]
			j++
		}
	}
	return nil
}

// Cart is a communicator with a Cartesian topology (MPI_Cart_create): rank
// r sits at coordinates CartCoords(r) of a grid of Dims(), row-major (the
// last dimension varies fastest), periodic in the dimensions Periods() says.
// It is a *Comm for everything else.
type Cart struct {
	*Comm
	dims    []int
	periods []bool
}

// CartCreate makes a Cartesian communicator of the first prod(dims) ranks
// of c; the other ranks get nil. Every member of c must call it with the
// same arguments. Ranks keep their order (reorder is accepted and ignored:
// MPI allows that).
func (c *Comm) CartCreate(dims []int, periods []bool, reorder bool) (*Cart, error) {
	if err := c.valid("CartCreate"); err != nil {
		return nil, err
	}
	if len(periods) != len(dims) {
		return nil, c.errf("CartCreate", base.ErrArg, -1, -1, fmt.Sprintf("%d dimensions, %d periods", len(dims), len(periods)), "give one period flag per dimension")
	}
	n := 1
	for _, d := range dims {
		if d < 1 {
			return nil, c.errf("CartCreate", base.ErrArg, -1, -1, fmt.Sprintf("dimensions %v", dims), "every dimension must be at least 1 (DimsCreate fills zeros)")
		}
		n *= d
	}
	if n > c.Size() {
		return nil, c.errf("CartCreate", base.ErrArg, -1, -1, fmt.Sprintf("a grid of %v needs %d ranks, %s has %d", dims, n, c.c.Name(), c.Size()), "")
	}
	color := 0
	if c.Rank() >= n {
		color = Undefined
	}
	sub, err := c.split(RoutineCartCreate, color, c.Rank())
	if err != nil || sub == nil {
		return nil, err
	}
	return &Cart{Comm: sub, dims: slices.Clone(dims), periods: slices.Clone(periods)}, nil
}

// Dims returns the grid's dimensions.
func (t *Cart) Dims() []int { return slices.Clone(t.dims) }

// Periods returns which dimensions wrap around.
func (t *Cart) Periods() []bool { return slices.Clone(t.periods) }

// CartCoords returns the coordinates of rank r (MPI_Cart_coords).
func (t *Cart) CartCoords(r int) ([]int, error) {
	if r < 0 || r >= t.Size() {
		return nil, t.errf("CartCoords", base.ErrRank, r, -1, fmt.Sprintf("rank %d is not in the grid of %d", r, t.Size()), "")
	}
	coords := make([]int, len(t.dims))
	for i := len(t.dims) - 1; i >= 0; i-- {
		coords[i] = r % t.dims[i]
		r /= t.dims[i]
	}
	return coords, nil
}

// CartRank returns the rank at coords (MPI_Cart_rank); a coordinate out of
// range wraps around in a periodic dimension and is ErrRank in another.
func (t *Cart) CartRank(coords []int) (int, error) {
	if len(coords) != len(t.dims) {
		return 0, t.errf("CartRank", base.ErrArg, -1, -1, fmt.Sprintf("%d coordinates for %d dimensions", len(coords), len(t.dims)), "")
	}
	r := 0
	for i, x := range coords {
		d := t.dims[i]
		if x < 0 || x >= d {
			if !t.periods[i] {
				return 0, t.errf("CartRank", base.ErrRank, -1, -1, fmt.Sprintf("coordinate %d of dimension %d is outside 0..%d", x, i, d-1), "")
			}
			x = ((x % d) + d) % d
		}
		r = r*d + x
	}
	return r, nil
}

// CartShift returns the ranks to receive from and send to for a shift of
// disp along dimension dim (MPI_Cart_shift): src is disp steps back, dest
// disp steps ahead; past the edge of a non-periodic dimension they are
// ProcNull, so that Sendrecv with them does nothing there.
func (t *Cart) CartShift(dim, disp int) (src, dest int, err error) {
	if dim < 0 || dim >= len(t.dims) {
		return 0, 0, t.errf("CartShift", base.ErrArg, -1, -1, fmt.Sprintf("dimension %d of %d", dim, len(t.dims)), "")
	}
	me, _ := t.CartCoords(t.Rank())
	at := func(delta int) int {
		c := slices.Clone(me)
		c[dim] += delta
		r, err := t.CartRank(c)
		if err != nil {
			return ProcNull
		}
		return r
	}
	return at(-disp), at(disp), nil
}

// Sub splits the grid into grids of the dimensions remain keeps
// (MPI_Cart_sub): the ranks that share the coordinates of the dropped
// dimensions form one. Every member must call it.
func (t *Cart) Sub(remain []bool) (*Cart, error) {
	if len(remain) != len(t.dims) {
		return nil, t.errf("Cart.Sub", base.ErrArg, -1, -1, fmt.Sprintf("%d flags for %d dimensions", len(remain), len(t.dims)), "")
	}
	me, _ := t.CartCoords(t.Rank())
	color, key := 0, 0
	var dims []int
	var periods []bool
	for i, keep := range remain {
		if keep {
			key = key*t.dims[i] + me[i]
			dims = append(dims, t.dims[i])
			periods = append(periods, t.periods[i])
		} else {
			color = color*t.dims[i] + me[i]
		}
	}
	sub, err := t.Split(color, key)
	if err != nil {
		return nil, err
	}
	return &Cart{Comm: sub, dims: dims, periods: periods}, nil
}
