package expert

import (
	"math"
	"strconv"

	"github.com/gompi/gompi/expert/lang"
)

// Value is the value of an expression.
type Value struct {
	T lang.Type
	N float64
	S string
	B bool
}

func num(v float64) Value  { return Value{T: lang.TypeNumber, N: v} }
func str(s string) Value   { return Value{T: lang.TypeString, S: s} }
func boolean(b bool) Value { return Value{T: lang.TypeBool, B: b} }

// String formats a value for advice texts and keys.
func (v Value) String() string {
	switch v.T {
	case lang.TypeNumber:
		return strconv.FormatFloat(v.N, 'g', 6, 64)
	case lang.TypeString:
		return v.S
	case lang.TypeBool:
		return strconv.FormatBool(v.B)
	}
	return "?"
}

// key is an exact form of v for join indexes.
func (v Value) key() string {
	switch v.T {
	case lang.TypeNumber:
		return strconv.FormatFloat(v.N, 'g', -1, 64)
	case lang.TypeString:
		return strconv.Quote(v.S)
	}
	return v.String()
}

// node is a simple or composite event.
type node struct {
	typ      *eventType
	call     *Call // simple events
	seq      int
	instance int
	msg      int64
	params   []Value   // in the order of the type's parameters
	members  [][]*node // composite events: per member, one event or a group
}

// eventType is what the analyser knows of an event type.
type eventType struct {
	name   string
	index  map[string]int // parameter name -> position in node.params
	simple *lang.EventDecl
	comp   *lang.CompositeDecl
	names  map[string]int // composite: member name -> index
}

func (n *node) get(name string) Value {
	if c := n.call; c != nil {
		switch name {
		case "start":
			return num(c.Start)
		case "end":
			return num(c.End)
		case "duration":
			return num(c.End - c.Start)
		case "rank":
			return num(float64(c.Rank))
		case "routine":
			return str(c.Routine)
		case "function":
			return str(c.Func)
		case "file":
			return str(c.File)
		case "line":
			return num(float64(c.Line))
		case "site":
			return str(c.Site())
		case "msg":
			return num(float64(n.msg))
		case "instance":
			return num(float64(n.instance))
		case "seq":
			return num(float64(n.seq))
		}
	}
	if i, ok := n.typ.index[name]; ok {
		return n.params[i]
	}
	return Value{}
}

// env is what names mean while an expression is evaluated.
type env struct {
	call    *Call          // tracing rules: the call's arguments
	names   map[string]int // member name -> index
	members [][]*node
	bound   []*node // the element of a group an aggregate is at
	self    *node   // problem rules: the composite event
}

func (e *env) member(name string) *node {
	i := e.names[name]
	if e.bound != nil && e.bound[i] != nil {
		return e.bound[i]
	}
	return e.members[i][0]
}

func callArg(c *Call, name string) Value {
	switch name {
	case "routine":
		return str(c.Routine)
	case "peer":
		return num(float64(c.Peer))
	case "tag":
		return num(float64(c.Tag))
	case "bytes":
		return num(float64(c.Bytes))
	case "comm":
		return num(float64(c.Comm))
	case "root":
		return num(float64(c.Root))
	case "request":
		return num(float64(c.Request))
	case "side":
		return str(c.Side)
	case "status_source":
		return num(float64(c.StatusSource))
	case "status_tag":
		return num(float64(c.StatusTag))
	case "status_bytes":
		return num(float64(c.StatusBytes))
	}
	return Value{}
}

func (e *env) eval(x lang.Expr) Value {
	switch x := x.(type) {
	case *lang.NumberLit:
		return num(x.V)
	case *lang.StringLit:
		return str(x.V)
	case *lang.BoolLit:
		return boolean(x.V)
	case *lang.Ident:
		if e.call != nil {
			return callArg(e.call, x.Name)
		}
		if e.self != nil {
			if i, ok := e.self.typ.index[x.Name]; ok {
				return e.self.params[i]
			}
		}
		return Value{T: lang.TypeEvent}
	case *lang.Field:
		return e.member(x.Member).get(x.Name)
	case *lang.Unary:
		v := e.eval(x.X)
		if x.Op == "not" {
			return boolean(!v.B)
		}
		return num(-v.N)
	case *lang.Binary:
		return e.binary(x)
	case *lang.Call:
		return e.callFunc(x)
	}
	return Value{}
}

func (e *env) binary(x *lang.Binary) Value {
	switch x.Op {
	case "and":
		return boolean(e.eval(x.L).B && e.eval(x.R).B)
	case "or":
		return boolean(e.eval(x.L).B || e.eval(x.R).B)
	}
	l, r := e.eval(x.L), e.eval(x.R)
	if x.Op == "+" && (l.T == lang.TypeString || r.T == lang.TypeString) {
		return str(l.String() + r.String())
	}
	switch x.Op {
	case "+":
		return num(l.N + r.N)
	case "-":
		return num(l.N - r.N)
	case "*":
		return num(l.N * r.N)
	case "/":
		return num(l.N / r.N)
	case "==":
		return boolean(l == r)
	case "!=":
		return boolean(l != r)
	}
	c := 0 // compare numbers (NaN compares false) or strings
	if l.T == lang.TypeString {
		switch {
		case l.S < r.S:
			c = -1
		case l.S > r.S:
			c = 1
		}
		switch x.Op {
		case "<":
			return boolean(c < 0)
		case "<=":
			return boolean(c <= 0)
		case ">":
			return boolean(c > 0)
		}
		return boolean(c >= 0)
	}
	switch x.Op {
	case "<":
		return boolean(l.N < r.N)
	case "<=":
		return boolean(l.N <= r.N)
	case ">":
		return boolean(l.N > r.N)
	}
	return boolean(l.N >= r.N)
}

func (e *env) callFunc(x *lang.Call) Value {
	if x.Group != "" {
		// An aggregate over a group: max over no events is -Inf, min +Inf,
		// so comparisons with them say false.
		gi := e.names[x.Group]
		if e.bound == nil {
			e.bound = make([]*node, len(e.members))
		}
		saved := e.bound[gi]
		defer func() { e.bound[gi] = saved }()
		acc, n := 0.0, 0
		switch x.Fun {
		case "min":
			acc = math.Inf(1)
		case "max":
			acc = math.Inf(-1)
		}
		for _, m := range e.members[gi] {
			e.bound[gi] = m
			if x.Where != nil && !e.eval(x.Where).B {
				continue
			}
			n++
			if x.Fun == "count" {
				continue
			}
			v := e.eval(x.Args[0]).N
			switch x.Fun {
			case "sum":
				acc += v
			case "min":
				acc = min(acc, v)
			case "max":
				acc = max(acc, v)
			}
		}
		if x.Fun == "count" {
			return num(float64(n))
		}
		return num(acc)
	}
	switch x.Fun {
	case "count":
		if x.Where != nil && !e.eval(x.Where).B {
			return num(0)
		}
		return num(1)
	case "abs":
		return num(math.Abs(e.eval(x.Args[0]).N))
	case "sum":
		return e.eval(x.Args[0])
	}
	v := e.eval(x.Args[0]).N
	for _, a := range x.Args[1:] {
		w := e.eval(a).N
		if x.Fun == "min" {
			v = min(v, w)
		} else {
			v = max(v, w)
		}
	}
	if len(x.Args) == 1 && x.Where != nil && !e.eval(x.Where).B {
		// min or max of one event filtered away: as for an empty group.
		if x.Fun == "min" {
			return num(math.Inf(1))
		}
		return num(math.Inf(-1))
	}
	return num(v)
}
