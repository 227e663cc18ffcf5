package expert

import (
	"strings"

	"github.com/gompi/gompi/expert/lang"
)

// Finding is one occurrence of a problem: the spec's pb with its duration,
// the call where the time was lost (At) and the calls of the composite event
// it was found on (the actions, A_INFO).
type Finding struct {
	Problem  *lang.ProblemDecl
	Duration float64 // seconds lost
	At       *Call
	Actions  []*Call
	Advice   string
}

type analysis struct {
	rules  *lang.Rules
	types  map[string]*eventType
	events map[string][]*node // by type, in rank and call order
}

// Analyse applies rules to t and gives every problem occurrence found.
func Analyse(rules *lang.Rules, t *Trace) []Finding {
	a := &analysis{rules: rules, types: map[string]*eventType{}, events: map[string][]*node{}}
	for _, d := range rules.Events {
		et := &eventType{name: d.Name, index: map[string]int{}, simple: d}
		for i, p := range d.Params {
			et.index[p.Name] = i
		}
		a.types[d.Name] = et
	}
	a.simpleEvents(t)
	for _, d := range rules.Composites {
		et := &eventType{name: d.Name, index: map[string]int{}, comp: d, names: map[string]int{}}
		for i, p := range d.Params {
			et.index[p.Name] = i
		}
		for i, m := range d.Members {
			et.names[m.Name] = i
		}
		a.types[d.Name] = et
		a.composites(et)
	}
	var out []Finding
	for _, p := range rules.Problems {
		out = append(out, a.problems(p)...)
	}
	return out
}

// simpleEvents applies the tracing rules: each call becomes one event per
// rule that names its routine (and whose when holds).
func (a *analysis) simpleEvents(t *Trace) {
	byRoutine := map[string][]*eventType{}
	for _, d := range a.rules.Events {
		for _, r := range d.Routines {
			byRoutine[r] = append(byRoutine[r], a.types[d.Name])
		}
	}
	unmatched := int64(-1)
	for r := range t.Calls {
		seq := map[string]int{}
		type instKey struct {
			routine string
			comm    int64
		}
		inst := map[instKey]int{}
		for i := range t.Calls[r] {
			c := &t.Calls[r][i]
			k := instKey{c.Routine, c.Comm}
			if lang.Collective(c.Routine) {
				k.routine = "" // one order for every collective on a communicator
			}
			instance := inst[k]
			inst[k]++
			types := byRoutine[c.Routine]
			if len(types) == 0 {
				continue
			}
			msg := c.Msg
			if msg < 0 {
				msg = unmatched // unique, so that unmatched calls join nothing
				unmatched--
			}
			for _, et := range types {
				e := &env{call: c}
				if et.simple.When != nil && !e.eval(et.simple.When).B {
					continue
				}
				n := &node{typ: et, call: c, seq: seq[et.name], instance: instance, msg: msg}
				seq[et.name]++
				for _, p := range et.simple.Params {
					n.params = append(n.params, e.eval(p.Value))
				}
				a.events[et.name] = append(a.events[et.name], n)
			}
		}
	}
}

// composites builds the events of one composite type: for each candidate of
// the first member, the later members are looked up through the join
// equalities of when; the first combination for which when holds is taken.
// Members not marked shared then belong to this event only.
func (a *analysis) composites(et *eventType) {
	d := et.comp
	nm := len(d.Members)
	used := map[*node]bool{}
	indexes := make([]map[string][]*node, nm)
	for _, j := range d.Plan {
		idx := map[string][]*node{}
		e := &env{names: et.names, members: make([][]*node, nm)}
		for _, c := range a.events[d.Members[j.Member].Type] {
			e.members[j.Member] = []*node{c}
			k := keyOf(e, j.Keys)
			idx[k] = append(idx[k], c)
		}
		indexes[j.Member] = idx
	}
	e := &env{names: et.names, members: make([][]*node, nm)}
	var search func(k int) bool
	search = func(k int) bool {
		if k == nm {
			return d.When == nil || e.eval(d.When).B
		}
		j := d.Plan[k-1]
		m := d.Members[k]
		cands := indexes[k][keyOf(e, j.From)]
		if m.All {
			var list []*node
			for _, c := range cands {
				if m.Shared || !used[c] {
					list = append(list, c)
				}
			}
			if len(list) == 0 {
				return false
			}
			e.members[k] = list
			return search(k + 1)
		}
		one := make([]*node, 1)
		for _, c := range cands {
			if !m.Shared && used[c] {
				continue
			}
			one[0] = c
			e.members[k] = one
			if search(k + 1) {
				return true
			}
		}
		return false
	}
	for _, first := range a.events[d.Members[0].Type] {
		if !d.Members[0].Shared && used[first] {
			continue
		}
		e.members[0] = []*node{first}
		if !search(1) {
			continue
		}
		n := &node{typ: et, members: make([][]*node, nm)}
		for i, ms := range e.members {
			n.members[i] = append([]*node(nil), ms...) // search reuses its slices
		}
		for i, m := range d.Members {
			if !m.Shared {
				for _, x := range n.members[i] {
					used[x] = true
				}
			}
		}
		pe := &env{names: et.names, members: n.members}
		for _, p := range d.Params {
			n.params = append(n.params, pe.eval(p.Value))
		}
		a.events[d.Name] = append(a.events[d.Name], n)
	}
}

func keyOf(e *env, xs []lang.Expr) string {
	var b strings.Builder
	for _, x := range xs {
		b.WriteString(e.eval(x).key())
		b.WriteByte(0)
	}
	return b.String()
}

func (a *analysis) problems(p *lang.ProblemDecl) []Finding {
	et := a.types[p.For]
	var out []Finding
	for _, n := range a.events[p.For] {
		e := &env{names: et.names, members: n.members, self: n}
		if p.When != nil && !e.eval(p.When).B {
			continue
		}
		d := e.eval(p.Duration).N
		if !(d > 0) {
			continue
		}
		out = append(out, Finding{
			Problem:  p,
			Duration: d,
			At:       at(n, p.At),
			Actions:  actions(n, nil),
			Advice:   e.eval(p.Advice).S,
		})
	}
	return out
}

// at follows the problem's at path (member or member.member) to a call.
func at(n *node, path string) *Call {
	for _, name := range strings.Split(path, ".") {
		if n.call != nil {
			break
		}
		n = n.members[n.typ.names[name]][0]
	}
	for n.call == nil { // a composite: its first member
		n = n.members[0][0]
	}
	return n.call
}

// actions extracts the calls of an event's members recursively (the spec's
// Frec); groups are left out, they would list every rank.
func actions(n *node, out []*Call) []*Call {
	if n.call != nil {
		for _, c := range out {
			if c == n.call {
				return out
			}
		}
		return append(out, n.call)
	}
	for i, ms := range n.members {
		if n.typ.comp.Members[i].All {
			continue
		}
		for _, m := range ms {
			out = actions(m, out)
		}
	}
	return out
}
