// Package base holds what every layer of gompi shares: the error classes and
// the structured error, the status of a completed receive, and the wildcard
// constants. The public package re-exports them; the engine and the backends
// below the API construct them.
package base

import (
	"errors"
	"fmt"
	"strings"
)

// Error classes. Test with errors.Is; the message of a class says what is
// wrong, the Error that wraps it says where and what to do.
var (
	ErrTruncate     = errors.New("message truncated")
	ErrRank         = errors.New("invalid rank")
	ErrTag          = errors.New("invalid tag")
	ErrComm         = errors.New("invalid communicator")
	ErrPeerLost     = errors.New("peer lost")
	ErrTimeout      = errors.New("timed out")
	ErrNotSupported = errors.New("not supported")
	ErrArg          = errors.New("invalid argument")
	ErrRequest      = errors.New("invalid request")
	ErrBuffer       = errors.New("buffered-send buffer exhausted")
	ErrAborted      = errors.New("job aborted")
	ErrMismatch     = errors.New("collective arguments differ across ranks")
	ErrInternal     = errors.New("internal error")
)

// Error is the error every gompi operation returns: which operation failed,
// on which rank, against which peer and tag, and why (Err is one of the
// classes above, or wraps one).
type Error struct {
	Op     string // operation, e.g. "Recv"
	Rank   int    // the calling rank in the communicator, -1 if unknown
	Peer   int    // peer rank in the communicator, -1 if none
	Tag    int    // -1 if none
	Err    error  // the class (or an error wrapping it)
	Detail string // what happened, in numbers
	Hint   string // what the user can do about it
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("gompi: ")
	b.WriteString(e.Op)
	if e.Rank >= 0 {
		fmt.Fprintf(&b, " on rank %d", e.Rank)
	}
	if e.Peer >= 0 {
		fmt.Fprintf(&b, " with peer %d", e.Peer)
	}
	if e.Tag >= 0 {
		fmt.Fprintf(&b, " tag %d", e.Tag)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	if e.Hint != "" {
		b.WriteString(" (")
		b.WriteString(e.Hint)
		b.WriteString(")")
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// New returns an *Error with no rank, peer or tag recorded.
func New(op string, class error, detail, hint string) *Error {
	return &Error{Op: op, Rank: -1, Peer: -1, Tag: -1, Err: class, Detail: detail, Hint: hint}
}

// Hints shared by several call sites.
const (
	HintTruncate = "post a receive buffer at least as large as the message, or Probe first to learn its size"
	HintPeerLost = "the peer exited or died before the operation could complete; check its output"
)
