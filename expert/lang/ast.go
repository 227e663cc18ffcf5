// Package lang is the Performance Expert's rule language: tracing rules that
// turn calls into simple events, composite events built from members, and
// problems recognised on composite events (spec: performance-expert.md).
//
//	declare event recv for Recv parameters(in source = peer);
//	declare composite event point_to_point
//	member(send as s, recv as r)
//	when s.msg == r.msg
//	parameters(send_start_time = s.start, recv_wait_start_time = r.start);
//	declare problem for point_to_point
//	when send_start_time > recv_wait_start_time
//	parameters(name = "Late sender", description = "...", advice = "...",
//	           duration = send_start_time - recv_wait_start_time);
//
// Parse reads a file into declarations; Check resolves names and types over
// one or more files and gives the Rules the analyser interprets.
package lang

import "fmt"

// Pos is a place in a rule file.
type Pos struct {
	File      string
	Line, Col int
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// File is one parsed rule file.
type File struct {
	Name       string
	Events     []*EventDecl
	Composites []*CompositeDecl
	Problems   []*ProblemDecl
}

// EventDecl is a tracing rule: each call of one of Routines (for which When
// holds) becomes a simple event of type Name with Params computed from the
// call's arguments.
type EventDecl struct {
	Pos      Pos
	Name     string
	Routines []string
	When     Expr // nil: always
	Params   []*Param
}

// Param is one "name = expression" of a parameters list. Kind is "in" or
// "out" in tracing rules (which arguments it may read), "" elsewhere.
type Param struct {
	Pos   Pos
	Kind  string
	Name  string
	Value Expr
	Type  Type // set by Check
}

// Member is one "[shared] [all] type as name" of a composite event.
type Member struct {
	Pos    Pos
	Shared bool // may belong to several composite events of this type
	All    bool // a group: every event that satisfies the joins
	Type   string
	Name   string
}

// CompositeDecl builds composite events of type Name from its members.
type CompositeDecl struct {
	Pos     Pos
	Name    string
	Members []*Member
	When    Expr // nil: always
	Params  []*Param
	Plan    []Join // set by Check: how each member after the first is found
}

// Join says how member Member (index into Members) is found from the members
// before it: the events whose Keys equal the values of From.
type Join struct {
	Member int
	Keys   []Expr // over the member only
	From   []Expr // over earlier members only
}

// ProblemDecl recognises a problem on composite events of type For.
type ProblemDecl struct {
	Pos         Pos
	For         string
	When        Expr
	Name        string // the name parameter (a string literal)
	Description string
	Advice      Expr
	Duration    Expr
	At          string // the member where the time is lost (optional parameter "at")
	Params      []*Param
}

// Type is the type of an expression.
type Type uint8

// The types of the language.
const (
	TypeInvalid Type = iota
	TypeNumber
	TypeString
	TypeBool
	TypeEvent // a member name used alone (count(m), at = m)
)

func (t Type) String() string {
	switch t {
	case TypeNumber:
		return "number"
	case TypeString:
		return "string"
	case TypeBool:
		return "bool"
	case TypeEvent:
		return "event"
	}
	return "invalid"
}

// Expr is an expression.
type Expr interface{ Position() Pos }

// NumberLit is a number.
type NumberLit struct {
	Pos Pos
	V   float64
}

// StringLit is a string.
type StringLit struct {
	Pos Pos
	V   string
}

// BoolLit is true or false.
type BoolLit struct {
	Pos Pos
	V   bool
}

// Ident is a name: a call argument in tracing rules, a member in composite
// rules, a composite parameter in problem rules.
type Ident struct {
	Pos  Pos
	Name string
}

// Field is member.parameter.
type Field struct {
	Pos    Pos
	Member string
	Name   string
}

// Unary is -x or not x.
type Unary struct {
	Pos Pos
	Op  string
	X   Expr
}

// Binary is x op y.
type Binary struct {
	Pos  Pos
	Op   string
	L, R Expr
}

// Call is a function call; Where filters the group of an aggregate:
// max(e.start where e.rank < me.rank).
type Call struct {
	Pos   Pos
	Fun   string
	Args  []Expr
	Where Expr
	Group string // set by Check: the group member an aggregate ranges over
}

func (e *NumberLit) Position() Pos { return e.Pos }
func (e *StringLit) Position() Pos { return e.Pos }
func (e *BoolLit) Position() Pos   { return e.Pos }
func (e *Ident) Position() Pos     { return e.Pos }
func (e *Field) Position() Pos     { return e.Pos }
func (e *Unary) Position() Pos     { return e.Pos }
func (e *Binary) Position() Pos    { return e.Pos }
func (e *Call) Position() Pos      { return e.Pos }
