package hwtopo

import (
	"fmt"
	"io"
	"strings"
)

// BindTo says what a rank is bound to (the launcher's --bind-to).
type BindTo int

// Binding targets.
const (
	BindNone   BindTo = iota // no binding: the OS scheduler places the rank
	BindCore                 // the hardware threads of one core
	BindSocket               // all CPUs of one package
)

var bindNames = []string{"none", "core", "socket"}

func (b BindTo) String() string { return enumName(bindNames, int(b)) }

// Set parses "none", "core" or "socket" ("package" is accepted for socket);
// with String and Type it makes a BindTo usable as a pflag.Value.
func (b *BindTo) Set(s string) error {
	if s == "package" {
		s = "socket"
	}
	return setEnum(bindNames, s, "--bind-to", (*int)(b))
}

// Type names the flag's value type for pflag.
func (*BindTo) Type() string { return "none|core|socket" }

// MapBy says in which order ranks take cores (the launcher's --map-by).
type MapBy int

// Mapping orders.
const (
	// MapByCore is compact: fill every core of package 0, then package 1 …
	// (the system tests' binding "by core").
	MapByCore MapBy = iota
	// MapBySocket is round-robin over packages: first core of package 0,
	// first core of package 1, …, then the second cores (binding "by
	// processor").
	MapBySocket
)

var mapNames = []string{"core", "socket"}

func (m MapBy) String() string { return enumName(mapNames, int(m)) }

// Set parses "core" or "socket" ("package" is accepted for socket).
func (m *MapBy) Set(s string) error {
	if s == "package" {
		s = "socket"
	}
	return setEnum(mapNames, s, "--map-by", (*int)(m))
}

// Type names the flag's value type for pflag.
func (*MapBy) Type() string { return "core|socket" }

func enumName(names []string, v int) string {
	if v >= 0 && v < len(names) {
		return names[v]
	}
	return fmt.Sprintf("invalid(%d)", v)
}

func setEnum(names []string, s, flag string, dst *int) error {
	for i, n := range names {
		if n == s {
			*dst = i
			return nil
		}
	}
	return fmt.Errorf("%s: %q is not one of %s", flag, s, strings.Join(names, ", "))
}

// Slot is where one rank runs.
type Slot struct {
	Rank    int
	Package int    // package ID of the rank's core
	Core    int    // index into Topology.Cores of the rank's core
	CPUs    CPUSet // the CPUs to bind it to; empty for BindNone
	Sharing int    // how many ranks the plan puts on this core, this one included
}

// Plan places n ranks on a machine's cores.
type Plan struct {
	MapBy  MapBy
	BindTo BindTo
	Slots  []Slot
	Cores  int // cores available to the plan (with an allowed CPU)
	// Oversubscribed is set when there are more ranks than cores: ranks
	// then share cores (Slot.Sharing > 1), round-robin in map order.
	Oversubscribed bool
}

// Plan places n ranks on the allowed cores in the order mapBy gives, one
// rank per core while cores last, and binds each as bindTo says. With more
// ranks than cores the order wraps around and the plan says Oversubscribed;
// it never hides the sharing (see Warning).
func (t *Topology) Plan(n int, mapBy MapBy, bindTo BindTo) (*Plan, error) {
	if n < 1 {
		return nil, fmt.Errorf("hwtopo: cannot plan for %d ranks", n)
	}
	if bindTo < BindNone || bindTo > BindSocket || mapBy < MapByCore || mapBy > MapBySocket {
		return nil, fmt.Errorf("hwtopo: invalid plan options --map-by %v --bind-to %v", mapBy, bindTo)
	}
	// Cores of each package with an allowed CPU, in package order.
	var perPkg [][]int
	pkgIndex := map[int]int{}
	for i, c := range t.Cores {
		if len(c.CPUs.Intersect(t.Allowed)) == 0 {
			continue
		}
		pi, ok := pkgIndex[c.Package]
		if !ok {
			pi = len(perPkg)
			pkgIndex[c.Package] = pi
			perPkg = append(perPkg, nil)
		}
		perPkg[pi] = append(perPkg[pi], i)
	}
	var order []int
	switch mapBy {
	case MapByCore:
		for _, cores := range perPkg {
			order = append(order, cores...)
		}
	case MapBySocket:
		for k := 0; len(order) < countAll(perPkg); k++ {
			for _, cores := range perPkg {
				if k < len(cores) {
					order = append(order, cores[k])
				}
			}
		}
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("hwtopo: no allowed core to place ranks on (allowed CPUs %q)", t.Allowed)
	}
	p := &Plan{MapBy: mapBy, BindTo: bindTo, Cores: len(order), Oversubscribed: n > len(order)}
	sharing := make(map[int]int)
	for r := range n {
		sharing[order[r%len(order)]]++
	}
	pkgCPUs := map[int]CPUSet{}
	for _, pk := range t.Packages {
		pkgCPUs[pk.ID] = pk.CPUs.Intersect(t.Allowed)
	}
	for r := range n {
		ci := order[r%len(order)]
		core := t.Cores[ci]
		s := Slot{Rank: r, Package: core.Package, Core: ci, Sharing: sharing[ci]}
		switch bindTo {
		case BindCore:
			s.CPUs = core.CPUs.Intersect(t.Allowed)
		case BindSocket:
			s.CPUs = pkgCPUs[core.Package]
		}
		p.Slots = append(p.Slots, s)
	}
	return p, nil
}

func countAll(xs [][]int) int {
	n := 0
	for _, x := range xs {
		n += len(x)
	}
	return n
}

// Warning returns a sentence for the user when the plan oversubscribes the
// machine, "" otherwise.
func (p *Plan) Warning() string {
	if !p.Oversubscribed {
		return ""
	}
	most := 0
	for _, s := range p.Slots {
		most = max(most, s.Sharing)
	}
	how := "the OS scheduler shares the cores between them"
	if p.BindTo != BindNone {
		how = fmt.Sprintf("up to %d ranks are bound to the same %s and share its time", most, p.BindTo)
	}
	return fmt.Sprintf("%d ranks on %d cores: oversubscribed; %s, so timings are not those of one rank per core",
		len(p.Slots), p.Cores, how)
}

// Bind pins process pid, all its threads, to rank's CPUs; it does nothing
// for BindNone.
func (p *Plan) Bind(rank, pid int) error {
	cpus, err := p.cpus(rank)
	if err != nil || cpus == nil {
		return err
	}
	return BindProcess(pid, cpus)
}

// BindThread pins the calling OS thread to rank's CPUs (lock the goroutine
// to its thread first); it does nothing for BindNone.
func (p *Plan) BindThread(rank int) error {
	cpus, err := p.cpus(rank)
	if err != nil || cpus == nil {
		return err
	}
	return BindThread(cpus)
}

// cpus returns rank's CPUs, nil for BindNone.
func (p *Plan) cpus(rank int) (CPUSet, error) {
	if rank < 0 || rank >= len(p.Slots) {
		return nil, fmt.Errorf("hwtopo: rank %d not in a plan for %d ranks", rank, len(p.Slots))
	}
	if p.BindTo == BindNone {
		return nil, nil
	}
	return p.Slots[rank].CPUs, nil
}

// WriteText prints the plan as a table: rank, package, core, CPUs, sharing.
func (p *Plan) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "plan: %d ranks on %d cores, --map-by %v --bind-to %v\n", len(p.Slots), p.Cores, p.MapBy, p.BindTo)
	if warn := p.Warning(); warn != "" {
		fmt.Fprintf(&b, "warning: %s\n", warn)
	}
	fmt.Fprintf(&b, "%5s %8s %5s  %-12s %s\n", "rank", "package", "core", "cpus", "sharing")
	for _, s := range p.Slots {
		cpus := s.CPUs.String()
		if cpus == "" {
			cpus = "(unbound)"
		}
		fmt.Fprintf(&b, "%5d %8d %5d  %-12s %d\n", s.Rank, s.Package, s.Core, cpus, s.Sharing)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
