package base

// Wildcards and special ranks. The values are those of Open MPI, so that the
// cgo backend passes them through unchanged.
const (
	AnySource = -1 // Recv/Probe: match a message from any rank
	AnyTag    = -1 // Recv/Probe: match a message with any tag
	ProcNull  = -2 // a send to or receive from ProcNull completes at once, moving nothing
	Undefined = -32766
	// MaxTag is the largest tag a user may pass (MPI guarantees at least 32767).
	MaxTag = 1<<30 - 1
)

// Status describes a completed receive or a probed message.
type Status struct {
	Source    int  // rank of the sender in the communicator
	Tag       int  // tag of the message
	Count     int  // bytes received (or, for Probe, bytes in the message)
	Cancelled bool // the receive was cancelled before it matched
}

// EmptyStatus is the status of an operation with no message (ProcNull,
// a send, an inactive request).
var EmptyStatus = Status{Source: ProcNull, Tag: AnyTag}
