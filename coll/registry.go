package coll

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

// Algorithm is one registered algorithm of one operation.
type Algorithm struct {
	Op      Operation
	Name    string // unique within Op; lower case, words joined by '_'
	Summary string // one line: the idea
	Cost    Cost
	// Constraints says in words when the algorithm applies or pays off
	// ("commutative ops only", "long messages"); "" if always.
	Constraints string
	// Commutative: the algorithm needs a commutative op (it cannot keep rank
	// order); selection skips it for other ops.
	Commutative bool
	// Available, if not nil, reports whether the algorithm can run this call
	// on this communicator (e.g. "all ranks share memory"). It must give the
	// same answer on every rank of a call.
	Available func(c Comm, a *Args) bool
	// Run performs the operation on one rank. a has been validated for Op
	// (lengths, counts, root, element size) before Run is called.
	Run func(c Comm, a *Args) error
}

// Cost is the time of an algorithm in the α–β (Hockney) model: α per
// message on the critical path, β per byte sent, γ per byte reduced.
type Cost struct {
	Formula string // e.g. "⌈log₂p⌉(α + mβ)"; p ranks, m bytes (see Operation.SizeMeaning)
	// Terms gives the coefficients of α, β and γ for p ranks, m bytes and
	// segments of s bytes (pipelined algorithms; 0: their default).
	Terms func(p, m, s int) (alpha, beta, gamma float64)
}

// Eval is the modelled time for p ranks, m bytes and segments of s bytes.
func (c Cost) Eval(p, m, s int, alpha, beta, gamma float64) float64 {
	if c.Terms == nil {
		return 0
	}
	a, b, g := c.Terms(p, m, s)
	return a*alpha + b*beta + g*gamma
}

// registry holds the algorithms of each operation in registration order and
// the selection table. Built-ins are registered at init; the runtime adds its
// own at start-up. Writers hold the lock and publish an immutable snapshot
// for the readers: choosing an algorithm, once per collective call, takes no
// lock and allocates nothing.
var registry = struct {
	sync.RWMutex
	algs  map[Operation][]*Algorithm
	table map[Operation][]Rule
}{algs: map[Operation][]*Algorithm{}, table: map[Operation][]Rule{}}

// opSnap is what selection needs of one operation.
type opSnap struct {
	algs  []*Algorithm
	rules []snapRule
}

type snapRule struct {
	Rule
	use []*Algorithm // Rule.Use resolved
}

var snapshot atomic.Pointer[[]*opSnap] // by opIndex

// publish rebuilds the snapshot of the operation that changed; the others
// keep theirs. Rebuilding every operation on each change made registering
// the built-ins and their tables at start-up quadratic: about 2,800
// allocations in every rank's package initialization, 7 % of a 64-rank
// hello's CPU time (docs/PERFORMANCE.md). Caller holds the registry's write
// lock.
//
// Inside Batch, publish only notes the operation; the outermost Batch
// publishes every noted one at once.
func publish(changed Operation) {
	if batch.depth > 0 {
		batch.pending[changed] = true
		return
	}
	publishOps(func(op Operation) bool { return op == changed })
}

// publishOps rebuilds the snapshots of the operations changed says, and
// those not built yet. Caller holds the registry's write lock.
func publishOps(changed func(Operation) bool) {
	m := make([]*opSnap, len(ops))
	if old := snapshot.Load(); old != nil {
		copy(m, *old)
	}
	for i, op := range ops {
		if m[i] == nil || changed(op) {
			m[i] = buildSnap(op)
		}
	}
	snapshot.Store(&m)
}

// batch counts the Batch calls running and the operations changed in them;
// under the registry's write lock.
var batch struct {
	depth   int
	pending map[Operation]bool
}

// Batch runs fn, which registers algorithms and sets tables, and rebuilds
// what selection reads once, when fn returns, instead of after every
// Register and SetTable: a runtime that installs dozens of algorithms and
// rules at start-up (every process of a job does) then pays for one
// rebuild per operation. Until fn returns, the collective calls choose
// their algorithm from the operations fn changed as they were before;
// Table, Select, Algorithms and Lookup see every change at once. Batch calls may
// nest, and fn must not be called from two goroutines at once with
// another's Batch (the usual case is an init function). If fn panics, the
// changes made so far are published before the panic goes on.
func Batch(fn func() error) error {
	registry.Lock()
	if batch.depth == 0 {
		batch.pending = map[Operation]bool{}
	}
	batch.depth++
	registry.Unlock()
	defer func() {
		registry.Lock()
		defer registry.Unlock()
		if batch.depth--; batch.depth == 0 {
			pending := batch.pending
			batch.pending = nil
			publishOps(func(op Operation) bool { return pending[op] })
		}
	}()
	return fn()
}

// buildSnap makes what selection needs of op from the registry. Caller holds
// the registry's lock.
func buildSnap(op Operation) *opSnap {
	s := &opSnap{algs: append([]*Algorithm(nil), registry.algs[op]...)}
	for _, r := range registry.table[op] {
		sr := snapRule{Rule: r}
		for _, name := range r.Use {
			if a, err := lookup(op, name); err == nil {
				sr.use = append(sr.use, a)
			}
		}
		s.rules = append(s.rules, sr)
	}
	return s
}

func snap(op Operation) *opSnap {
	if m, i := snapshot.Load(), opIndex(op); m != nil && i >= 0 {
		return (*m)[i]
	}
	return nil
}

// Register adds an algorithm. The name must be new for its operation, and Run
// must be set. To have selection use it, put it into the table (SetTable);
// until then it runs only when named.
func Register(a Algorithm) error {
	if _, ok := opInfos[a.Op]; !ok {
		return argErr("register %q: unknown operation %q", a.Name, a.Op)
	}
	if a.Name == "" || strings.ContainsAny(a.Name, " \t\n,=") || a.Run == nil {
		return argErr("register %s algorithm %q: needs a name without spaces, commas or '=', and Run", a.Op, a.Name)
	}
	registry.Lock()
	defer registry.Unlock()
	for _, b := range registry.algs[a.Op] {
		if b.Name == a.Name {
			return argErr("register: %s algorithm %q exists already", a.Op, a.Name)
		}
	}
	registry.algs[a.Op] = append(registry.algs[a.Op], &a)
	publish(a.Op)
	return nil
}

// Algorithms lists the algorithms of op in registration order.
func Algorithms(op Operation) []Algorithm {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]Algorithm, len(registry.algs[op]))
	for i, a := range registry.algs[op] {
		out[i] = *a
	}
	return out
}

// Lookup finds an algorithm by name. An unknown name is an error wrapping
// ErrUnknownAlgorithm that lists the valid names.
func Lookup(op Operation, name string) (Algorithm, error) {
	registry.RLock()
	defer registry.RUnlock()
	a, err := lookup(op, name)
	if err != nil {
		return Algorithm{}, err
	}
	return *a, nil
}

// lookup is Lookup with the registry lock held.
func lookup(op Operation, name string) (*Algorithm, error) {
	if _, ok := opInfos[op]; !ok {
		return nil, argErr("unknown operation %q", op)
	}
	for _, a := range registry.algs[op] {
		if a.Name == name {
			return a, nil
		}
	}
	var names []string
	for _, a := range registry.algs[op] {
		names = append(names, a.Name)
	}
	return nil, fmt.Errorf("%w %q for %s; valid: %s", ErrUnknownAlgorithm, name, op, strings.Join(names, ", "))
}

// mustRegister registers a built-in.
func mustRegister(a Algorithm) {
	if err := Register(a); err != nil {
		panic(err)
	}
}
