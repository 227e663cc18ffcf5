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

	// Classes of Init failures.
	ErrEnvironment         = errors.New("invalid job environment")
	ErrLauncherUnreachable = errors.New("launcher unreachable")
	ErrSecretRefused       = errors.New("job secret refused")
	ErrSharedMemory        = errors.New("shared memory unavailable")
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
	// Cause is the error below this one (an OS error, the launcher's, a
	// collective algorithm's), reachable with errors.Is and errors.As; its
	// text is printed only when Detail is empty.
	Cause error
	// MessageBytes and BufferBytes are, for ErrTruncate, the size of the
	// message and of the receive buffer; 0 otherwise.
	MessageBytes, BufferBytes int
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
	} else if e.Cause != nil {
		b.WriteString(": ")
		b.WriteString(Describe(e.Cause))
	}
	if e.Hint != "" {
		b.WriteString(" (")
		b.WriteString(e.Hint)
		b.WriteString(")")
	}
	return b.String()
}

// Unwrap returns the class and the cause, so that errors.Is finds the class
// and errors.As reaches the cause.
func (e *Error) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Err, e.Cause}
	}
	return []error{e.Err}
}

// Describe is err's text without the "gompi: " every *Error starts with, for
// an error quoted inside another.
func Describe(err error) string {
	return strings.TrimPrefix(err.Error(), "gompi: ")
}

// classed is an error of a lower layer given its class.
type classed struct{ class, cause error }

func (e classed) Error() string   { return e.cause.Error() }
func (e classed) Unwrap() []error { return []error{e.class, e.cause} }

// Classify returns cause marked with class (errors.Is(result, class) holds),
// its text unchanged; nil stays nil.
func Classify(class, cause error) error {
	if cause == nil {
		return nil
	}
	return classed{class, cause}
}

// ClassOf returns the first of classes that err is, or nil.
func ClassOf(err error, classes ...error) error {
	for _, c := range classes {
		if errors.Is(err, c) {
			return c
		}
	}
	return nil
}

// New returns an *Error with no rank, peer or tag recorded.
func New(op string, class error, detail, hint string) *Error {
	return &Error{Op: op, Rank: -1, Peer: -1, Tag: -1, Err: class, Detail: detail, Hint: hint}
}

// Hints shared by several call sites.
const (
	HintTruncate = "post a receive buffer at least as large as the message, or Probe first to learn its size"
	HintPeerLost = "the peer exited or died before the operation could complete; check its output"
)
