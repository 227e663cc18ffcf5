package lang

import (
	"fmt"
	"sort"
	"strings"
)

// Rules is a checked set of rule files, ready for the analyser.
type Rules struct {
	Events     []*EventDecl
	Composites []*CompositeDecl // in declaration order: members before users
	Problems   []*ProblemDecl

	eventTypes map[string]*EventDecl
	compTypes  map[string]*CompositeDecl
}

// Event gives the tracing rule of simple event type name.
func (r *Rules) Event(name string) *EventDecl { return r.eventTypes[name] }

// Composite gives the declaration of composite event type name.
func (r *Rules) Composite(name string) *CompositeDecl { return r.compTypes[name] }

// CallArgs are the arguments of a call a tracing rule may read, with the
// kind each needs: "in" arguments are known when the call starts, "out"
// ones when it returns.
var CallArgs = map[string]struct {
	Kind string
	Type Type
}{
	"routine": {"in", TypeString}, // the call's name: Send, Recv, ...
	"peer":    {"in", TypeNumber}, // destination or source as a world rank, -1 for none or any
	"tag":     {"in", TypeNumber}, // -1 for none or any
	"bytes":   {"in", TypeNumber}, // bytes sent or the receive buffer's size
	"comm":    {"in", TypeNumber}, // communicator (or window) id
	"root":    {"in", TypeNumber}, // root of a rooted collective as a world rank, -1 for none
	"request": {"in", TypeNumber}, // request id (rank-local), 0 for none
	"side":    {"in", TypeString}, // "send" or "receive" for a Start (by its persistent request) and the two halves of a Sendrecv; "" for other calls

	"status_source": {"out", TypeNumber}, // the source a receive matched, as a world rank
	"status_tag":    {"out", TypeNumber},
	"status_bytes":  {"out", TypeNumber},
}

// EventBuiltins are the parameters every simple event has: filled by the
// tracer (time, duration, process, call site) and by the analyser (the
// matching of sends to receives and of collective calls across ranks).
var EventBuiltins = map[string]Type{
	"start":    TypeNumber, // when the call began, seconds on the trace's one time axis
	"end":      TypeNumber, // when it returned
	"duration": TypeNumber, // end - start
	"rank":     TypeNumber, // the process (world rank)
	"routine":  TypeString, // the call: Send, Recv, Barrier, ...
	"function": TypeString, // the user's function that made the call
	"file":     TypeString, // its source file
	"line":     TypeNumber, // and line
	"site":     TypeString, // "Recv in main.exchange (jacobi.go:88)"
	"msg":      TypeNumber, // message id shared by a send and its matching receive, -1 when unmatched
	"instance": TypeNumber, // collective calls: the k-th on its communicator (same k on every rank); others: the k-th call of this routine on this communicator by this rank
	"seq":      TypeNumber, // index among this rank's events of this type
}

// Check resolves and type-checks files as one rule set; later files may use
// the types of earlier ones (a user's file after the knowledge base).
func Check(files ...*File) (*Rules, error) {
	r := &Rules{eventTypes: map[string]*EventDecl{}, compTypes: map[string]*CompositeDecl{}}
	for _, f := range files {
		for _, d := range f.Events {
			if err := r.checkEvent(d); err != nil {
				return nil, err
			}
		}
	}
	for _, f := range files {
		for _, d := range f.Composites {
			if err := r.checkComposite(d); err != nil {
				return nil, err
			}
		}
	}
	for _, f := range files {
		for _, d := range f.Problems {
			if err := r.checkProblem(d); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}

func errAt(p Pos, format string, args ...any) error {
	return &Error{Pos: p, Msg: fmt.Sprintf(format, args...), Class: ErrCheck}
}

func (r *Rules) declared(name string, p Pos) error {
	if d := r.eventTypes[name]; d != nil {
		return errAt(p, "event type %s is already declared at %s", name, d.Pos)
	}
	if d := r.compTypes[name]; d != nil {
		return errAt(p, "event type %s is already declared at %s", name, d.Pos)
	}
	return nil
}

func (r *Rules) checkEvent(d *EventDecl) error {
	if err := r.declared(d.Name, d.Pos); err != nil {
		return err
	}
	for _, rt := range d.Routines {
		if !KnownRoutine(rt) {
			return errAt(d.Pos, "unknown routine %s in event %s: expected one of %s", rt, d.Name, strings.Join(Routines, ", "))
		}
	}
	env := &scope{rules: r, trace: true}
	if d.When != nil {
		if err := env.want(d.When, TypeBool, "the when condition"); err != nil {
			return err
		}
	}
	seen := map[string]bool{}
	for _, p := range d.Params {
		if _, ok := EventBuiltins[p.Name]; ok {
			return errAt(p.Pos, "parameter %s of event %s is filled by the tracer; choose another name", p.Name, d.Name)
		}
		if seen[p.Name] {
			return errAt(p.Pos, "parameter %s given twice", p.Name)
		}
		seen[p.Name] = true
		if p.Kind == "" {
			p.Kind = "in"
		}
		env.kind = p.Kind
		t, _, err := env.check(p.Value)
		if err != nil {
			return err
		}
		if t == TypeEvent {
			return errAt(p.Pos, "parameter %s must be a number, string or bool", p.Name)
		}
		p.Type = t
	}
	r.eventTypes[d.Name] = d
	r.Events = append(r.Events, d)
	return nil
}

// ParamType gives the type of parameter name of event type typ.
func (r *Rules) ParamType(typ, name string) (Type, bool) {
	if d := r.eventTypes[typ]; d != nil {
		if t, ok := EventBuiltins[name]; ok {
			return t, true
		}
		for _, p := range d.Params {
			if p.Name == name {
				return p.Type, true
			}
		}
		return TypeInvalid, false
	}
	if d := r.compTypes[typ]; d != nil {
		for _, p := range d.Params {
			if p.Name == name {
				return p.Type, true
			}
		}
	}
	return TypeInvalid, false
}

func (r *Rules) paramNames(typ string) string {
	var names []string
	if d := r.eventTypes[typ]; d != nil {
		for n := range EventBuiltins {
			names = append(names, n)
		}
		for _, p := range d.Params {
			names = append(names, p.Name)
		}
	} else if d := r.compTypes[typ]; d != nil {
		for _, p := range d.Params {
			names = append(names, p.Name)
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func (r *Rules) checkComposite(d *CompositeDecl) error {
	if err := r.declared(d.Name, d.Pos); err != nil {
		return err
	}
	env := &scope{rules: r, members: map[string]*Member{}, index: map[string]int{}}
	for i, m := range d.Members {
		if r.eventTypes[m.Type] == nil && r.compTypes[m.Type] == nil {
			return errAt(m.Pos, "unknown event type %s (declare it before the composite events that use it)", m.Type)
		}
		if env.members[m.Name] != nil {
			return errAt(m.Pos, "member name %s used twice", m.Name)
		}
		if i == 0 && m.All {
			return errAt(m.Pos, "the first member cannot be a group (all): the others are found from it")
		}
		env.members[m.Name] = m
		env.index[m.Name] = i
	}
	// Split when into conjuncts; equalities that tie a member to the ones
	// before it become joins (found by index, not by trying every pair).
	var conj []Expr
	splitAnd(d.When, &conj)
	used := make([]bool, len(conj))
	for i := 1; i < len(d.Members); i++ {
		j := Join{Member: i}
		for ci, c := range conj {
			b, ok := c.(*Binary)
			if !ok || b.Op != "==" {
				continue
			}
			lm, rm := env.refs(b.L), env.refs(b.R)
			switch {
			case only(lm, i) && before(rm, i):
				j.Keys, j.From = append(j.Keys, b.L), append(j.From, b.R)
			case only(rm, i) && before(lm, i):
				j.Keys, j.From = append(j.Keys, b.R), append(j.From, b.L)
			default:
				continue
			}
			used[ci] = true
			env.inJoin = true
			for _, x := range []Expr{b.L, b.R} {
				if _, _, err := env.check(x); err != nil {
					return err
				}
			}
			env.inJoin = false
			lt, _, _ := env.check(b.L)
			rt, _, _ := env.check(b.R)
			if lt != rt {
				return errAt(b.Pos, "type mismatch: %s == %s", lt, rt)
			}
		}
		if len(j.Keys) == 0 {
			m := d.Members[i]
			return errAt(m.Pos, "member %s is not joined to the members before it: add an equality to when, such as %s.msg == %s.msg",
				m.Name, m.Name, d.Members[0].Name)
		}
		d.Plan = append(d.Plan, j)
	}
	var rest []Expr
	for ci, c := range conj {
		if !used[ci] {
			rest = append(rest, c)
		}
	}
	d.When = joinAnd(rest)
	if d.When != nil {
		if err := env.want(d.When, TypeBool, "the when condition"); err != nil {
			return err
		}
	}
	seen := map[string]bool{}
	for _, p := range d.Params {
		if seen[p.Name] {
			return errAt(p.Pos, "parameter %s given twice", p.Name)
		}
		seen[p.Name] = true
		t, groups, err := env.check(p.Value)
		if err != nil {
			return err
		}
		if err := env.noFreeGroup(p.Value, groups); err != nil {
			return err
		}
		if t == TypeEvent {
			return errAt(p.Pos, "parameter %s must be a number, string or bool, not an event", p.Name)
		}
		p.Type = t
	}
	r.compTypes[d.Name] = d
	r.Composites = append(r.Composites, d)
	return nil
}

func (r *Rules) checkProblem(d *ProblemDecl) error {
	c := r.compTypes[d.For]
	if c == nil {
		if r.eventTypes[d.For] != nil {
			return errAt(d.Pos, "problems are declared for composite events; %s is a simple event type", d.For)
		}
		return errAt(d.Pos, "unknown composite event type %s", d.For)
	}
	env := &scope{rules: r, members: map[string]*Member{}, index: map[string]int{}, params: map[string]Type{}}
	for i, m := range c.Members {
		env.members[m.Name] = m
		env.index[m.Name] = i
	}
	for _, p := range c.Params {
		env.params[p.Name] = p.Type
	}
	if d.When != nil {
		if err := env.want(d.When, TypeBool, "the when condition"); err != nil {
			return err
		}
	}
	required := map[string]Type{"name": TypeString, "description": TypeString, "advice": TypeString, "duration": TypeNumber}
	seen := map[string]bool{}
	for _, p := range d.Params {
		if seen[p.Name] {
			return errAt(p.Pos, "parameter %s given twice", p.Name)
		}
		seen[p.Name] = true
		switch p.Name {
		case "name", "description":
			s, ok := p.Value.(*StringLit)
			if !ok {
				return errAt(p.Value.Position(), "%s must be a string in quotes", p.Name)
			}
			if p.Name == "name" {
				d.Name = s.V
			} else {
				d.Description = s.V
			}
		case "advice", "duration":
			if err := env.want(p.Value, required[p.Name], p.Name); err != nil {
				return err
			}
			if p.Name == "advice" {
				d.Advice = p.Value
			} else {
				d.Duration = p.Value
			}
		case "at":
			at, err := r.atPath(c, p.Value)
			if err != nil {
				return err
			}
			d.At = at
		default:
			return errAt(p.Pos, "unknown problem parameter %s: expected name, description, advice, duration or at", p.Name)
		}
	}
	for _, n := range []string{"name", "description", "advice", "duration"} {
		if !seen[n] {
			return errAt(d.Pos, "problem for %s has no %s parameter", d.For, n)
		}
	}
	if d.At == "" {
		for _, m := range c.Members {
			if !m.All && !m.Shared {
				d.At = m.Name
				break
			}
		}
		if d.At == "" {
			d.At = c.Members[0].Name
		}
	}
	d.Params = nil
	r.Problems = append(r.Problems, d)
	return nil
}

// atPath checks the at parameter: one member of c (not a group), or
// member.submember when that member is itself a composite event.
func (r *Rules) atPath(c *CompositeDecl, v Expr) (string, error) {
	bad := errAt(v.Position(), "at must name one member of %s (not a group), or member.member of a composite member: where the time is lost", c.Name)
	find := func(c *CompositeDecl, name string) *Member {
		for _, m := range c.Members {
			if m.Name == name && !m.All {
				return m
			}
		}
		return nil
	}
	switch v := v.(type) {
	case *Ident:
		if find(c, v.Name) == nil {
			return "", bad
		}
		return v.Name, nil
	case *Field:
		m := find(c, v.Member)
		if m == nil || r.compTypes[m.Type] == nil || find(r.compTypes[m.Type], v.Name) == nil {
			return "", bad
		}
		return v.Member + "." + v.Name, nil
	}
	return "", bad
}

func splitAnd(e Expr, out *[]Expr) {
	if e == nil {
		return
	}
	if b, ok := e.(*Binary); ok && b.Op == "and" {
		splitAnd(b.L, out)
		splitAnd(b.R, out)
		return
	}
	*out = append(*out, e)
}

func joinAnd(es []Expr) Expr {
	if len(es) == 0 {
		return nil
	}
	e := es[0]
	for _, x := range es[1:] {
		e = &Binary{Pos: x.Position(), Op: "and", L: e, R: x}
	}
	return e
}

func only(ms map[int]bool, i int) bool { return len(ms) == 1 && ms[i] }

func before(ms map[int]bool, i int) bool {
	for m := range ms {
		if m >= i {
			return false
		}
	}
	return true
}

// scope is what names mean where an expression is checked.
type scope struct {
	rules   *Rules
	trace   bool   // in a tracing rule: names are call arguments
	kind    string // in or out, for tracing rule parameters
	members map[string]*Member
	index   map[string]int
	params  map[string]Type // problem rules: the composite's parameters
	inJoin  bool            // a join equality may name a group member directly
}

// refs gives the indexes of the members e names.
func (s *scope) refs(e Expr) map[int]bool {
	out := map[int]bool{}
	var walk func(Expr)
	walk = func(e Expr) {
		switch e := e.(type) {
		case *Field:
			if i, ok := s.index[e.Member]; ok {
				out[i] = true
			}
		case *Ident:
			if i, ok := s.index[e.Name]; ok && s.params[e.Name] == TypeInvalid {
				out[i] = true
			}
		case *Unary:
			walk(e.X)
		case *Binary:
			walk(e.L)
			walk(e.R)
		case *Call:
			for _, a := range e.Args {
				walk(a)
			}
			if e.Where != nil {
				walk(e.Where)
			}
		}
	}
	walk(e)
	return out
}

func (s *scope) want(e Expr, t Type, what string) error {
	got, groups, err := s.check(e)
	if err != nil {
		return err
	}
	if err := s.noFreeGroup(e, groups); err != nil {
		return err
	}
	if got != t {
		return errAt(e.Position(), "type mismatch: %s must be a %s, not a %s", what, t, got)
	}
	return nil
}

func (s *scope) noFreeGroup(e Expr, groups map[string]bool) error {
	for g := range groups {
		return errAt(e.Position(), "%s is a group (all): use it inside sum, min, max or count", g)
	}
	return nil
}

// check gives e's type and the group members it names outside aggregates.
func (s *scope) check(e Expr) (Type, map[string]bool, error) {
	switch e := e.(type) {
	case *NumberLit:
		return TypeNumber, nil, nil
	case *StringLit:
		return TypeString, nil, nil
	case *BoolLit:
		return TypeBool, nil, nil
	case *Ident:
		if s.trace {
			a, ok := CallArgs[e.Name]
			if !ok {
				return 0, nil, errAt(e.Pos, "unknown call argument %s: expected one of %s", e.Name, argNames())
			}
			if a.Kind == "out" && s.kind == "in" {
				return 0, nil, errAt(e.Pos, "%s is known only when the call returns: declare the parameter out", e.Name)
			}
			return a.Type, nil, nil
		}
		if t, ok := s.params[e.Name]; ok {
			return t, nil, nil
		}
		if m := s.members[e.Name]; m != nil {
			if m.All {
				return TypeEvent, map[string]bool{m.Name: true}, nil
			}
			return TypeEvent, nil, nil
		}
		if s.params != nil {
			return 0, nil, errAt(e.Pos, "unknown parameter or member %s", e.Name)
		}
		return 0, nil, errAt(e.Pos, "unknown member %s (write member.parameter)", e.Name)
	case *Field:
		if s.trace {
			return 0, nil, errAt(e.Pos, "tracing rules read call arguments by name; %s.%s is not one", e.Member, e.Name)
		}
		m := s.members[e.Member]
		if m == nil {
			return 0, nil, errAt(e.Pos, "unknown member %s", e.Member)
		}
		t, ok := s.rules.ParamType(m.Type, e.Name)
		if !ok {
			return 0, nil, errAt(e.Pos, "unknown parameter %s of event type %s: expected one of %s", e.Name, m.Type, s.rules.paramNames(m.Type))
		}
		if m.All && !s.inJoin {
			return t, map[string]bool{m.Name: true}, nil
		}
		return t, nil, nil
	case *Unary:
		t, g, err := s.check(e.X)
		if err != nil {
			return 0, nil, err
		}
		want := TypeNumber
		if e.Op == "not" {
			want = TypeBool
		}
		if t != want {
			return 0, nil, errAt(e.Pos, "type mismatch: %s needs a %s, not a %s", e.Op, want, t)
		}
		return t, g, nil
	case *Binary:
		lt, lg, err := s.check(e.L)
		if err != nil {
			return 0, nil, err
		}
		rt, rg, err := s.check(e.R)
		if err != nil {
			return 0, nil, err
		}
		g := union(lg, rg)
		switch e.Op {
		case "and", "or":
			if lt != TypeBool || rt != TypeBool {
				return 0, nil, errAt(e.Pos, "type mismatch: %s needs two bools, not %s and %s", e.Op, lt, rt)
			}
			return TypeBool, g, nil
		case "+":
			if lt == TypeString || rt == TypeString {
				if lt == TypeEvent || rt == TypeEvent {
					return 0, nil, errAt(e.Pos, "type mismatch: cannot add an event to a string")
				}
				return TypeString, g, nil
			}
			fallthrough
		case "-", "*", "/":
			if lt != TypeNumber || rt != TypeNumber {
				return 0, nil, errAt(e.Pos, "type mismatch: %s needs two numbers, not %s and %s", e.Op, lt, rt)
			}
			return TypeNumber, g, nil
		case "==", "!=":
			if lt != rt || lt == TypeEvent {
				return 0, nil, errAt(e.Pos, "type mismatch: cannot compare %s %s %s", lt, e.Op, rt)
			}
			return TypeBool, g, nil
		default: // < <= > >=
			if lt != rt || (lt != TypeNumber && lt != TypeString) {
				return 0, nil, errAt(e.Pos, "type mismatch: cannot order %s %s %s", lt, e.Op, rt)
			}
			return TypeBool, g, nil
		}
	case *Call:
		return s.checkCall(e)
	}
	return 0, nil, errAt(Pos{}, "unknown expression")
}

func (s *scope) checkCall(e *Call) (Type, map[string]bool, error) {
	var groups map[string]bool
	var types []Type
	for _, a := range e.Args {
		t, g, err := s.check(a)
		if err != nil {
			return 0, nil, err
		}
		types = append(types, t)
		groups = union(groups, g)
	}
	if e.Where != nil {
		t, g, err := s.check(e.Where)
		if err != nil {
			return 0, nil, err
		}
		if t != TypeBool {
			return 0, nil, errAt(e.Where.Position(), "type mismatch: where needs a bool, not a %s", t)
		}
		groups = union(groups, g)
	}
	aggregate := len(e.Args) == 1 && (e.Fun == "sum" || e.Fun == "min" || e.Fun == "max" || e.Fun == "count")
	if e.Where != nil && !aggregate {
		return 0, nil, errAt(e.Pos, "where filters the group of sum, min, max or count with one argument")
	}
	if aggregate {
		if len(groups) > 1 {
			return 0, nil, errAt(e.Pos, "%s ranges over one group, not %d", e.Fun, len(groups))
		}
		for g := range groups {
			e.Group = g
		}
		if e.Fun == "count" {
			if types[0] != TypeEvent {
				return 0, nil, errAt(e.Pos, "count takes a member, not a %s", types[0])
			}
			return TypeNumber, nil, nil
		}
		if types[0] != TypeNumber {
			return 0, nil, errAt(e.Pos, "type mismatch: %s needs a number, not a %s", e.Fun, types[0])
		}
		return TypeNumber, nil, nil
	}
	switch e.Fun {
	case "min", "max":
		if len(e.Args) < 2 {
			return 0, nil, errAt(e.Pos, "%s needs an argument", e.Fun)
		}
	case "abs":
		if len(e.Args) != 1 {
			return 0, nil, errAt(e.Pos, "abs takes one argument, not %d", len(e.Args))
		}
	case "sum", "count":
		return 0, nil, errAt(e.Pos, "%s takes one argument, not %d", e.Fun, len(e.Args))
	default:
		return 0, nil, errAt(e.Pos, "unknown function %s: expected min, max, abs, sum or count", e.Fun)
	}
	for i, t := range types {
		if t != TypeNumber {
			return 0, nil, errAt(e.Args[i].Position(), "type mismatch: %s needs numbers, not a %s", e.Fun, t)
		}
	}
	return TypeNumber, groups, nil
}

func union(a, b map[string]bool) map[string]bool {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func argNames() string {
	var names []string
	for n := range CallArgs {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
