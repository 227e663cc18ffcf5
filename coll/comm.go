package coll

// Comm is the point-to-point service an algorithm runs over: ranks 0..Size()-1
// of one communicator.
//
// The Comm handed to an algorithm is private to that one collective call: the
// runtime separates concurrent calls (each call gets its own tag space), so an
// algorithm may use any tag in [0, MaxTag]. Messages between a pair of ranks
// with the same tag are received in the order they were sent (MPI's
// non-overtaking rule). There are no wildcards: every receive names its source
// and tag.
//
// An algorithm calls its Comm from one goroutine only. A send may complete
// before the matching receive is posted (eager) or only when it is matched
// (rendezvous); algorithms must be correct under both, so two ranks never both
// block in Send towards each other.
type Comm interface {
	// Rank is this process's rank, in [0, Size()).
	Rank() int
	// Size is the number of ranks of the communicator.
	Size() int
	// Send sends buf to rank dest with tag tag and returns when buf may be
	// reused. A zero-length (even nil) buf sends an empty message.
	Send(buf []byte, dest, tag int) error
	// Recv receives the next message from source with tag tag into buf and
	// returns its length n. A message longer than buf is an error (truncation);
	// a shorter one is not: it fills buf[:n].
	Recv(buf []byte, source, tag int) (n int, err error)
	// Isend starts a send. buf must not be modified until the request's Wait
	// has returned.
	Isend(buf []byte, dest, tag int) (Request, error)
	// Irecv starts a receive. buf must not be read or written until the
	// request's Wait has returned.
	Irecv(buf []byte, source, tag int) (Request, error)
}

// Request is a pending Isend or Irecv.
type Request interface {
	// Wait blocks until the operation is complete. For a receive, n is the
	// length of the message received, as for Comm.Recv; for a send, n is 0.
	// Every request is waited for exactly once, by the goroutine that
	// started it.
	Wait() (n int, err error)
}

// MaxTag is the largest tag an algorithm may use; the runtime must offer at
// least the tags [0, MaxTag] to each call. The built-in algorithms use tags
// below 8.
const MaxTag = 255

// AlgorithmChooser is an optional interface of a Comm: a communicator with its
// own algorithm preferences (MPI info hints, a tuning file) implements it. The
// result must be the same on every rank of the communicator. An empty string
// means "no preference": the environment and the table decide.
type AlgorithmChooser interface {
	ChooseAlgorithm(op Operation, commSize, bytes int) string
}

// AlgorithmObserver is implemented by a Comm that wants to know which
// algorithm each call runs (a tracer records it): Call tells it once the
// algorithm is chosen, before running it.
type AlgorithmObserver interface {
	RunningAlgorithm(op Operation, name string)
}
