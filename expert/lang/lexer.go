package lang

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrSyntax is the class of every error Parse returns.
var ErrSyntax = errors.New("rule syntax error")

// ErrCheck is the class of every error Check returns.
var ErrCheck = errors.New("rule error")

// Error is an error at a place in a rule file.
type Error struct {
	Pos   Pos
	Msg   string
	Class error
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Unwrap gives the class (ErrSyntax or ErrCheck).
func (e *Error) Unwrap() error { return e.Class }

type tokKind uint8

const (
	tEOF tokKind = iota
	tIdent
	tNumber
	tString
	tPunct // ( ) , ; . and operators
)

type token struct {
	kind tokKind
	text string // identifier, operator, or the string's value
	num  float64
	pos  Pos
}

func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tString:
		return "string " + strconv.Quote(t.text)
	case tNumber:
		return "number " + t.text
	}
	return strconv.Quote(t.text)
}

type lexer struct {
	src       string
	file      string
	off       int
	line, col int
}

func (l *lexer) errf(p Pos, format string, args ...any) error {
	return &Error{Pos: p, Msg: fmt.Sprintf(format, args...), Class: ErrSyntax}
}

func (l *lexer) peekRune() rune {
	if l.off >= len(l.src) {
		return -1
	}
	r, _ := utf8.DecodeRuneInString(l.src[l.off:])
	return r
}

func (l *lexer) advance() rune {
	r, n := utf8.DecodeRuneInString(l.src[l.off:])
	l.off += n
	if r == '\n' {
		l.line++
		l.col = 1
	} else {
		l.col++
	}
	return r
}

// next reads one token, skipping blanks and comments (# or // to the end of
// the line).
func (l *lexer) next() (token, error) {
	for {
		r := l.peekRune()
		switch {
		case r == -1:
			return token{kind: tEOF, pos: l.pos()}, nil
		case unicode.IsSpace(r):
			l.advance()
			continue
		case r == '#' || strings.HasPrefix(l.src[l.off:], "//"):
			for r := l.peekRune(); r != -1 && r != '\n'; r = l.peekRune() {
				l.advance()
			}
			continue
		}
		break
	}
	p := l.pos()
	r := l.peekRune()
	switch {
	case r == utf8.RuneError && l.off < len(l.src):
		return token{}, l.errf(p, "the file is not valid UTF-8")
	case r == '_' || unicode.IsLetter(r):
		start := l.off
		for r := l.peekRune(); r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r); r = l.peekRune() {
			l.advance()
		}
		return token{kind: tIdent, text: l.src[start:l.off], pos: p}, nil
	case r >= '0' && r <= '9':
		start := l.off
		for r := l.peekRune(); (r >= '0' && r <= '9') || r == '.' || r == 'e' || r == 'E' ||
			((r == '+' || r == '-') && (l.src[l.off-1] == 'e' || l.src[l.off-1] == 'E')); r = l.peekRune() {
			l.advance()
		}
		text := l.src[start:l.off]
		v, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return token{}, l.errf(p, "bad number %q", text)
		}
		return token{kind: tNumber, text: text, num: v, pos: p}, nil
	case r == '"':
		l.advance()
		var b strings.Builder
		for {
			r := l.peekRune()
			switch r {
			case -1:
				return token{}, l.errf(p, "string not closed: expected '\"' before the end of the file")
			case '"':
				l.advance()
				return token{kind: tString, text: b.String(), pos: p}, nil
			case '\\':
				l.advance()
				e := l.peekRune()
				switch e {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				case '"', '\\':
					b.WriteRune(e)
				default:
					return token{}, l.errf(l.pos(), "unknown escape \\%c in string: expected \\n, \\t, \\\" or \\\\", e)
				}
				l.advance()
			default:
				b.WriteRune(l.advance())
			}
		}
	}
	for _, op := range []string{"==", "!=", "<=", ">=", "&&", "||"} {
		if strings.HasPrefix(l.src[l.off:], op) {
			l.advance()
			l.advance()
			return token{kind: tPunct, text: op, pos: p}, nil
		}
	}
	if strings.ContainsRune("(),;.+-*/<>!=", r) {
		l.advance()
		return token{kind: tPunct, text: string(r), pos: p}, nil
	}
	return token{}, l.errf(p, "unexpected character %q", r)
}

func (l *lexer) pos() Pos { return Pos{File: l.file, Line: l.line, Col: l.col} }
