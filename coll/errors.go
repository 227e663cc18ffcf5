package coll

import (
	"errors"
	"fmt"
)

// Error classes. Every error returned by this package is an *Error wrapping
// one of these, or an error of the Comm (which the runtime classifies itself);
// test them with errors.Is.
var (
	// ErrArg: an argument is invalid on this rank (a root out of range, a
	// buffer of the wrong length, a negative count...). It is found before any
	// message is sent, so the other ranks may wait for this one.
	ErrArg = errors.New("invalid argument")
	// ErrMismatch: the ranks disagree about the call (a message of another
	// size than this rank's arguments imply arrived).
	ErrMismatch = errors.New("arguments differ between ranks")
	// ErrUnknownAlgorithm: no algorithm of that name for that operation.
	ErrUnknownAlgorithm = errors.New("unknown algorithm")
	// ErrNotApplicable: the algorithm cannot run this call (it needs a
	// commutative op, or it is not available on this communicator).
	ErrNotApplicable = errors.New("algorithm not applicable")
)

// Error describes a failed collective call on one rank.
type Error struct {
	Op        Operation // the collective operation
	Algorithm string    // the algorithm that ran, "" if none was chosen
	Rank      int       // the rank that reports the error
	Peer      int       // the rank on the other side of the failed message, -1 if none
	Tag       int       // the tag of that message
	Err       error     // the class (ErrArg, ErrMismatch...) or the Comm's error
}

func (e *Error) Error() string {
	what := "coll: " + string(e.Op)
	if e.Algorithm != "" {
		what += "/" + e.Algorithm
	}
	what += fmt.Sprintf(" on rank %d", e.Rank)
	if e.Peer >= 0 {
		what += fmt.Sprintf(" with rank %d (tag %d)", e.Peer, e.Tag)
	}
	return what + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// argErr returns an ErrArg with an explanation.
func argErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrArg}, args...)...)
}
