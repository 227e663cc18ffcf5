package lang

import "fmt"

// Parse reads one rule file. name is used in error positions.
func Parse(name, src string) (*File, error) {
	p := &parser{lx: lexer{src: src, file: name, line: 1, col: 1}}
	if err := p.next(); err != nil {
		return nil, err
	}
	f := &File{Name: name}
	for p.tok.kind != tEOF {
		if err := p.decl(f); err != nil {
			return nil, err
		}
	}
	return f, nil
}

type parser struct {
	lx  lexer
	tok token
}

func (p *parser) next() error {
	t, err := p.lx.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

func (p *parser) expected(what string) error {
	return &Error{Pos: p.tok.pos, Msg: fmt.Sprintf("expected %s, found %s", what, p.tok.describe()), Class: ErrSyntax}
}

func (p *parser) isWord(w string) bool { return p.tok.kind == tIdent && p.tok.text == w }
func (p *parser) isPunct(s string) bool {
	return p.tok.kind == tPunct && p.tok.text == s
}

func (p *parser) word(w string) error {
	if !p.isWord(w) {
		return p.expected(fmt.Sprintf("%q", w))
	}
	return p.next()
}

func (p *parser) punct(s string) error {
	if !p.isPunct(s) {
		return p.expected(fmt.Sprintf("%q", s))
	}
	return p.next()
}

var keywords = map[string]bool{
	"declare": true, "event": true, "composite": true, "problem": true, "member": true,
	"shared": true, "all": true, "as": true, "when": true, "parameters": true, "for": true,
	"in": true, "out": true, "and": true, "or": true, "not": true, "true": true,
	"false": true, "where": true,
}

// name reads an identifier that is not a keyword; what says what it names.
func (p *parser) name(what string) (string, Pos, error) {
	if p.tok.kind != tIdent || keywords[p.tok.text] {
		return "", p.tok.pos, p.expected(what)
	}
	t := p.tok
	return t.text, t.pos, p.next()
}

func (p *parser) decl(f *File) error {
	pos := p.tok.pos
	if err := p.word("declare"); err != nil {
		return err
	}
	switch {
	case p.isWord("event"):
		d, err := p.eventDecl(pos)
		if err != nil {
			return err
		}
		f.Events = append(f.Events, d)
	case p.isWord("composite"):
		d, err := p.compositeDecl(pos)
		if err != nil {
			return err
		}
		f.Composites = append(f.Composites, d)
	case p.isWord("problem"):
		d, err := p.problemDecl(pos)
		if err != nil {
			return err
		}
		f.Problems = append(f.Problems, d)
	default:
		return p.expected(`"event", "composite event" or "problem"`)
	}
	return p.punct(";")
}

// declare event <type> for <Routine>, ... [when <expr>] [parameters(...)]
func (p *parser) eventDecl(pos Pos) (*EventDecl, error) {
	if err := p.next(); err != nil { // "event"
		return nil, err
	}
	d := &EventDecl{Pos: pos}
	var err error
	if d.Name, _, err = p.name("an event type name"); err != nil {
		return nil, err
	}
	if err := p.word("for"); err != nil {
		return nil, err
	}
	for {
		r, _, err := p.name("a routine name (Send, Recv, ...)")
		if err != nil {
			return nil, err
		}
		d.Routines = append(d.Routines, r)
		if !p.isPunct(",") {
			break
		}
		if err := p.next(); err != nil {
			return nil, err
		}
	}
	if d.When, err = p.optionalWhen(); err != nil {
		return nil, err
	}
	if p.isWord("parameters") {
		if d.Params, err = p.params(true); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// declare composite event <type> member(...) [when <expr>] parameters(...)
func (p *parser) compositeDecl(pos Pos) (*CompositeDecl, error) {
	if err := p.next(); err != nil { // "composite"
		return nil, err
	}
	if err := p.word("event"); err != nil {
		return nil, err
	}
	d := &CompositeDecl{Pos: pos}
	var err error
	if d.Name, _, err = p.name("a composite event type name"); err != nil {
		return nil, err
	}
	if err := p.word("member"); err != nil {
		return nil, err
	}
	if err := p.punct("("); err != nil {
		return nil, err
	}
	for {
		m := &Member{Pos: p.tok.pos}
		if p.isWord("shared") {
			m.Shared = true
			if err := p.next(); err != nil {
				return nil, err
			}
		}
		if p.isWord("all") {
			m.All = true
			if err := p.next(); err != nil {
				return nil, err
			}
		}
		if m.Type, _, err = p.name("a member event type (or shared, all)"); err != nil {
			return nil, err
		}
		if err := p.word("as"); err != nil {
			return nil, err
		}
		if m.Name, _, err = p.name("a member name"); err != nil {
			return nil, err
		}
		d.Members = append(d.Members, m)
		if p.isPunct(")") {
			break
		}
		if err := p.punct(","); err != nil {
			return nil, p.expected(`"," or ")"`)
		}
	}
	if err := p.next(); err != nil {
		return nil, err
	}
	if d.When, d.Params, err = p.whenThenParams(); err != nil {
		return nil, err
	}
	return d, nil
}

// declare problem for <type> [when <expr>] parameters(name=..., ...)
func (p *parser) problemDecl(pos Pos) (*ProblemDecl, error) {
	if err := p.next(); err != nil { // "problem"
		return nil, err
	}
	if err := p.word("for"); err != nil {
		return nil, err
	}
	d := &ProblemDecl{Pos: pos}
	var err error
	if d.For, _, err = p.name("a composite event type"); err != nil {
		return nil, err
	}
	if d.When, d.Params, err = p.whenThenParams(); err != nil {
		return nil, err
	}
	return d, nil
}

// whenThenParams reads the end of a composite or problem declaration:
// an optional "when <expr>", then "parameters(...)", which is required.
func (p *parser) whenThenParams() (Expr, []*Param, error) {
	when, err := p.optionalWhen()
	if err != nil {
		return nil, nil, err
	}
	if !p.isWord("parameters") {
		return nil, nil, p.expected(`"when" or "parameters"`)
	}
	params, err := p.params(false)
	if err != nil {
		return nil, nil, err
	}
	return when, params, nil
}

// optionalWhen reads "when <expr>" if it is there.
func (p *parser) optionalWhen() (Expr, error) {
	if !p.isWord("when") {
		return nil, nil
	}
	if err := p.next(); err != nil {
		return nil, err
	}
	return p.expr()
}

// parameters( [in|out] name = expr, ... )
func (p *parser) params(kinds bool) ([]*Param, error) {
	if err := p.next(); err != nil { // "parameters"
		return nil, err
	}
	if err := p.punct("("); err != nil {
		return nil, err
	}
	var ps []*Param
	for {
		pr := &Param{Pos: p.tok.pos}
		if kinds && (p.isWord("in") || p.isWord("out")) {
			pr.Kind = p.tok.text
			if err := p.next(); err != nil {
				return nil, err
			}
		}
		var err error
		if pr.Name, _, err = p.name("a parameter name"); err != nil {
			return nil, err
		}
		if err := p.punct("="); err != nil {
			return nil, err
		}
		if pr.Value, err = p.expr(); err != nil {
			return nil, err
		}
		ps = append(ps, pr)
		if p.isPunct(")") {
			return ps, p.next()
		}
		if !p.isPunct(",") {
			return nil, p.expected(`"," or ")"`)
		}
		if err := p.next(); err != nil {
			return nil, err
		}
	}
}

// Expressions, lowest precedence first: or, and, not, comparison, + -, * /,
// unary -, primary.
func (p *parser) expr() (Expr, error) { return p.orExpr() }

func (p *parser) orExpr() (Expr, error) {
	return p.level(p.andExpr, orOps)
}

func (p *parser) andExpr() (Expr, error) {
	return p.level(p.notExpr, andOps)
}

// The binary operators of each precedence level, by spelling.
var (
	orOps  = map[string]string{"or": "or", "||": "or"}
	andOps = map[string]string{"and": "and", "&&": "and"}
	addOps = map[string]string{"+": "+", "-": "-"}
	mulOps = map[string]string{"*": "*", "/": "/"}
)

// level parses operands of next joined by the left-associative operators
// ops (spelling -> operator).
func (p *parser) level(next func() (Expr, error), ops map[string]string) (Expr, error) {
	l, err := next()
	if err != nil {
		return nil, err
	}
	for {
		op, ok := ops[p.tok.text]
		if !ok || p.tok.kind == tString || p.tok.kind == tNumber {
			return l, nil
		}
		pos := p.tok.pos
		if err := p.next(); err != nil {
			return nil, err
		}
		r, err := next()
		if err != nil {
			return nil, err
		}
		l = &Binary{Pos: pos, Op: op, L: l, R: r}
	}
}

func (p *parser) notExpr() (Expr, error) {
	if p.isWord("not") || p.isPunct("!") {
		pos := p.tok.pos
		if err := p.next(); err != nil {
			return nil, err
		}
		x, err := p.notExpr()
		if err != nil {
			return nil, err
		}
		return &Unary{Pos: pos, Op: "not", X: x}, nil
	}
	return p.cmpExpr()
}

func (p *parser) cmpExpr() (Expr, error) {
	l, err := p.addExpr()
	if err != nil {
		return nil, err
	}
	for _, op := range []string{"==", "!=", "<=", ">=", "<", ">"} {
		if p.isPunct(op) {
			pos := p.tok.pos
			if err := p.next(); err != nil {
				return nil, err
			}
			r, err := p.addExpr()
			if err != nil {
				return nil, err
			}
			return &Binary{Pos: pos, Op: op, L: l, R: r}, nil
		}
	}
	return l, nil
}

func (p *parser) addExpr() (Expr, error) {
	return p.level(p.mulExpr, addOps)
}

func (p *parser) mulExpr() (Expr, error) {
	return p.level(p.unary, mulOps)
}

func (p *parser) unary() (Expr, error) {
	if p.isPunct("-") {
		pos := p.tok.pos
		if err := p.next(); err != nil {
			return nil, err
		}
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &Unary{Pos: pos, Op: "-", X: x}, nil
	}
	return p.primary()
}

func (p *parser) primary() (Expr, error) {
	t := p.tok
	switch {
	case t.kind == tNumber:
		return &NumberLit{Pos: t.pos, V: t.num}, p.next()
	case t.kind == tString:
		return &StringLit{Pos: t.pos, V: t.text}, p.next()
	case p.isWord("true") || p.isWord("false"):
		return &BoolLit{Pos: t.pos, V: t.text == "true"}, p.next()
	case p.isPunct("("):
		if err := p.next(); err != nil {
			return nil, err
		}
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		return x, p.punct(")")
	case t.kind == tIdent && !keywords[t.text]:
		if err := p.next(); err != nil {
			return nil, err
		}
		switch {
		case p.isPunct("."):
			if err := p.next(); err != nil {
				return nil, err
			}
			f, _, err := p.name("a parameter name after '.'")
			if err != nil {
				return nil, err
			}
			return &Field{Pos: t.pos, Member: t.text, Name: f}, nil
		case p.isPunct("("):
			return p.call(t)
		}
		return &Ident{Pos: t.pos, Name: t.text}, nil
	}
	return nil, p.expected("an expression")
}

func (p *parser) call(fn token) (Expr, error) {
	if err := p.next(); err != nil { // "("
		return nil, err
	}
	c := &Call{Pos: fn.pos, Fun: fn.text}
	if p.isPunct(")") {
		return c, p.next()
	}
	for {
		a, err := p.expr()
		if err != nil {
			return nil, err
		}
		c.Args = append(c.Args, a)
		if p.isWord("where") {
			if err := p.next(); err != nil {
				return nil, err
			}
			if c.Where, err = p.expr(); err != nil {
				return nil, err
			}
			return c, p.punct(")")
		}
		if p.isPunct(")") {
			return c, p.next()
		}
		if !p.isPunct(",") {
			return nil, p.expected(`",", "where" or ")"`)
		}
		if err := p.next(); err != nil {
			return nil, err
		}
	}
}
