package gompi

import "github.com/gompi/gompi/gompi/internal/base"

// Error classes. Every error gompi returns is an *Error whose Err is (or
// wraps) one of these, so callers test for them with errors.Is:
//
//	if errors.Is(err, gompi.ErrTruncate) { ... }
var (
	// ErrTruncate: a message was longer than the receive buffer. The first
	// len(buf) bytes were stored; later messages are unaffected.
	ErrTruncate = base.ErrTruncate
	// ErrRank: a rank outside 0..Size()-1 (and not AnySource or ProcNull).
	ErrRank = base.ErrRank
	// ErrTag: a tag outside 0..MaxTag (and not AnyTag, for receives).
	ErrTag = base.ErrTag
	// ErrComm: a nil or freed communicator, or gompi not initialized.
	ErrComm = base.ErrComm
	// ErrPeerLost: the peer finalized, exited or died before the operation
	// could complete.
	ErrPeerLost = base.ErrPeerLost
	// ErrTimeout: a blocking operation waited longer than GOMPI_TIMEOUT (or
	// the in-process run's context deadline).
	ErrTimeout = base.ErrTimeout
	// ErrNotSupported: this build or this machine cannot do what was asked.
	ErrNotSupported = base.ErrNotSupported
	// ErrArg: an invalid argument other than a rank or a tag.
	ErrArg = base.ErrArg
	// ErrRequest: a nil request, or a request used in the wrong state.
	ErrRequest = base.ErrRequest
	// ErrBuffer: a buffered send did not fit in the attached buffer.
	ErrBuffer = base.ErrBuffer
	// ErrAborted: the job is being aborted.
	ErrAborted = base.ErrAborted
	// ErrMismatch: the ranks called a collective with arguments that do not
	// agree (counts, roots, operations).
	ErrMismatch = base.ErrMismatch
	// ErrInternal: gompi or the library below it failed in a way no other
	// class describes; the error's Cause (or Detail) says how.
	ErrInternal = base.ErrInternal

	// Init failures.

	// ErrEnvironment: the job description in the environment is invalid or
	// incomplete (variables golaunch sets are missing, malformed or
	// contradictory).
	ErrEnvironment = base.ErrEnvironment
	// ErrLauncherUnreachable: golaunch's rendezvous store, or a peer, could
	// not be reached over the network.
	ErrLauncherUnreachable = base.ErrLauncherUnreachable
	// ErrSecretRefused: the store or a peer refused this rank's proof of
	// the job secret.
	ErrSecretRefused = base.ErrSecretRefused
	// ErrSharedMemory: the shared-memory segment could not be made or
	// attached.
	ErrSharedMemory = base.ErrSharedMemory
	// ErrWin: a nil or freed window, or a call the window's kind does not
	// have (Attach to a window that is not dynamic, ...).
	ErrWin = base.ErrWin
	// ErrRMARange: a one-sided operation reaches outside the target's
	// window (or, in a dynamic window, outside its attached memory).
	ErrRMARange = base.ErrRMARange
	// ErrRMASync: a one-sided call outside the epoch it needs, or a
	// synchronization that does not match (Unlock without Lock, ...).
	ErrRMASync = base.ErrRMASync
	// ErrRMAOp: an accumulate operation or compare-and-swap that the
	// window's element type does not support, or a user-defined operator.
	ErrRMAOp = base.ErrRMAOp
)

// Error is the error every gompi operation returns: the operation (Op), the
// rank, the peer and tag involved (-1 when none), the class (Err, also
// found by errors.Is), what happened (Detail), what to do about it (Hint),
// the error below it (Cause, also found by errors.Is and errors.As: an OS
// error, the launcher's, a collective algorithm's *coll.Error), and for
// ErrTruncate the sizes of the message and of the buffer:
//
//	var e *gompi.Error
//	if errors.As(err, &e) && errors.Is(err, gompi.ErrTruncate) {
//		buf = make([]byte, e.MessageBytes) // and receive the next one whole
//	}
type Error = base.Error

// Status describes a received or probed message: Source and Tag are the
// actual ones (useful after AnySource/AnyTag), Count is in bytes (see Count
// for elements).
type Status = base.Status

// Wildcards and special ranks.
const (
	AnySource = base.AnySource // receive or probe from any rank
	AnyTag    = base.AnyTag    // receive or probe with any tag
	ProcNull  = base.ProcNull  // a peer that is no one: operations with it complete at once
	Undefined = base.Undefined // Split color meaning "no new communicator"; Count of a ragged message
	MaxTag    = base.MaxTag    // the largest valid tag
)
