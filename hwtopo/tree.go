package hwtopo

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
)

// ObjType is the kind of an Object in the tree, in hwloc's terms.
type ObjType int

// Object types, from the root down. Caches sort by level between Group and
// Core; a NUMANode is a memory child, not a normal one.
const (
	ObjMachine ObjType = iota
	ObjPackage
	ObjGroup
	ObjCache
	ObjCore
	ObjPU
	ObjNUMANode
)

// Object is a node of the machine tree that lstopo draws: Machine, Package,
// Group, caches, Core, PU (a hardware thread), with NUMA nodes attached as
// memory children to the smallest object that holds exactly their CPUs.
type Object struct {
	Type        ObjType
	Cache       *Cache // for ObjCache
	Index       int    // logical index among objects of the same kind, in tree order (L#)
	OSIndex     int    // OS number of a PU or NUMA node (P#), -1 otherwise
	CPUs        CPUSet
	Memory      int64 // bytes: a node's memory; the total for the Machine
	Children    []*Object
	MemChildren []*Object // NUMA nodes attached here
}

// Label names the object as lstopo's console output does: "Package L#0",
// "L2 L#3 (1024KB)", "PU L#5 (P#9)", "NUMANode L#0 (P#0 7918MB)".
func (o *Object) Label() string {
	switch o.Type {
	case ObjMachine:
		return fmt.Sprintf("Machine (%s total)", memSize(o.Memory))
	case ObjPackage:
		return fmt.Sprintf("Package L#%d", o.Index)
	case ObjGroup:
		return fmt.Sprintf("Group0 L#%d", o.Index)
	case ObjCache:
		return fmt.Sprintf("%s L#%d (%s)", o.Cache.Name(), o.Index, memSize(o.Cache.Size))
	case ObjCore:
		return fmt.Sprintf("Core L#%d", o.Index)
	case ObjPU:
		return fmt.Sprintf("PU L#%d (P#%d)", o.Index, o.OSIndex)
	case ObjNUMANode:
		return fmt.Sprintf("NUMANode L#%d (P#%d %s)", o.Index, o.OSIndex, memSize(o.Memory))
	}
	return "?"
}

// memSize formats a size as hwloc does: KB below 10 MiB, MB below 10 GiB,
// GB above, truncated.
func memSize(b int64) string {
	switch {
	case b < 10<<20:
		return fmt.Sprintf("%dKB", b>>10)
	case b < 10<<30:
		return fmt.Sprintf("%dMB", b>>20)
	}
	return fmt.Sprintf("%dGB", b>>30)
}

// kindKey orders objects of different kinds with equal CPU sets: the one
// that comes first is the parent. Caches of higher level and unified before
// data before instruction come first, as in lstopo.
func (o *Object) kindKey() int {
	k := int(o.Type) * 100
	if o.Type == ObjCache {
		k += (9-o.Cache.Level)*10 + map[CacheType]int{Unified: 0, Data: 1, Instruction: 2}[o.Cache.Type]
	}
	return k
}

// kind groups objects whose logical indexes count together: each cache
// level and type has its own numbering.
func (o *Object) kind() string {
	if o.Type == ObjCache {
		return o.Cache.Name()
	}
	return fmt.Sprint(o.Type)
}

// Tree builds the machine tree: every package, cache, core and CPU is placed
// under the smallest object whose CPUs include its own.
func (t *Topology) Tree() *Object {
	root := &Object{Type: ObjMachine, CPUs: t.Online, Memory: t.MemTotal, OSIndex: -1}
	var objs []*Object
	for _, p := range t.Packages {
		objs = append(objs, &Object{Type: ObjPackage, CPUs: p.CPUs, OSIndex: -1})
	}
	for i := range t.Caches {
		objs = append(objs, &Object{Type: ObjCache, Cache: &t.Caches[i], CPUs: t.Caches[i].CPUs, OSIndex: -1})
	}
	for _, c := range t.Cores {
		objs = append(objs, &Object{Type: ObjCore, CPUs: c.CPUs, OSIndex: -1})
	}
	for _, c := range t.CPUs {
		objs = append(objs, &Object{Type: ObjPU, CPUs: CPUSet{c.ID}, OSIndex: c.ID})
	}
	// Larger sets first, so every parent is in place before its children.
	slices.SortStableFunc(objs, func(a, b *Object) int {
		return cmp.Or(cmp.Compare(len(b.CPUs), len(a.CPUs)), cmp.Compare(a.kindKey(), b.kindKey()))
	})
	for _, o := range objs {
		p := root.deepest(o.CPUs, func(*Object) bool { return true })
		p.Children = append(p.Children, o)
	}
	for _, n := range t.Nodes {
		root.attachNode(&Object{Type: ObjNUMANode, CPUs: n.CPUs, Memory: n.MemTotal, OSIndex: n.ID})
	}
	root.sortChildren()
	counters := map[string]int{}
	root.walk(func(o *Object, _ int) {
		for _, m := range o.MemChildren {
			m.Index = counters["numa"]
			counters["numa"]++
		}
		if o.Type != ObjMachine {
			o.Index = counters[o.kind()]
			counters[o.kind()]++
		}
	})
	return root
}

// deepest returns the deepest object below o, o included, that contains set
// and satisfies ok (the walk only goes through objects that contain set).
func (o *Object) deepest(set CPUSet, ok func(*Object) bool) *Object {
	for _, c := range o.Children {
		if set.SubsetOf(c.CPUs) {
			if d := c.deepest(set, ok); ok(d) {
				return d
			}
		}
	}
	return o
}

// attachNode attaches a NUMA node as a memory child of the deepest Machine,
// Package or Group holding its CPUs; where that object holds more CPUs than
// the node, a Group for the node's CPUs is put in between (hwloc does the
// same: memory is never attached to a cache or a core).
func (o *Object) attachNode(n *Object) {
	if len(n.CPUs) == 0 { // memory-only node
		o.MemChildren = append(o.MemChildren, n)
		return
	}
	p := o.deepest(n.CPUs, func(d *Object) bool { return d.Type <= ObjGroup })
	if !p.CPUs.Equal(n.CPUs) {
		g := &Object{Type: ObjGroup, CPUs: n.CPUs, OSIndex: -1}
		var rest []*Object
		for _, c := range p.Children {
			if c.CPUs.SubsetOf(n.CPUs) {
				g.Children = append(g.Children, c)
			} else {
				rest = append(rest, c)
			}
		}
		p.Children = append(rest, g)
		p = g
	}
	p.MemChildren = append(p.MemChildren, n)
}

func (o *Object) sortChildren() {
	slices.SortStableFunc(o.Children, func(a, b *Object) int { return cmp.Compare(a.CPUs[0], b.CPUs[0]) })
	for _, c := range o.Children {
		c.sortChildren()
	}
}

// walk visits o and everything below it in tree order, with the depth.
func (o *Object) walk(f func(*Object, int)) { o.walkDepth(f, 0) }

func (o *Object) walkDepth(f func(*Object, int), depth int) {
	f(o, depth)
	for _, c := range o.Children {
		c.walkDepth(f, depth+1)
	}
}

// WriteText prints the machine as `lstopo --of console` does: one object per
// line, indented by depth, NUMA nodes first among an object's children, and
// an object with a single child and no memory on the same line as that child
// ("L2 L#0 (256KB) + L1d L#0 (32KB) + L1i L#0 (32KB) + Core L#0").
func (t *Topology) WriteText(w io.Writer) error {
	var b strings.Builder
	var write func(o *Object, depth int)
	write = func(o *Object, depth int) {
		b.WriteString(strings.Repeat("  ", depth))
		b.WriteString(o.Label())
		for o.Type != ObjMachine && len(o.Children) == 1 && len(o.MemChildren) == 0 {
			o = o.Children[0]
			b.WriteString(" + ")
			b.WriteString(o.Label())
		}
		b.WriteByte('\n')
		for _, m := range o.MemChildren {
			b.WriteString(strings.Repeat("  ", depth+1))
			b.WriteString(m.Label())
			b.WriteByte('\n')
		}
		for _, c := range o.Children {
			write(c, depth+1)
		}
	}
	write(t.Tree(), 0)
	_, err := io.WriteString(w, b.String())
	return err
}
