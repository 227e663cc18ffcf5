package coll

import "errors"

// The pieces of Call, for a caller that keeps the algorithm it chose for a
// call and runs the same call again without choosing (the runtime's small
// blocking collectives, whose whole cost is a few hundred nanoseconds, of
// which selection took a sixth): validate (CheckRef), choose (SelectFor), run
// (RunChosen). A kept choice stays right while the Selection it was made
// under is Current (the table, the registry and the GOMPI_COLL_* overrides
// unchanged) and the caller's own inputs to it (its AlgorithmChooser, what
// its algorithms' Available functions read, the call's arguments) are the
// same.

// Selection identifies the selection in force: the snapshot of the registry
// and tables, and the environment's overrides. Two equal Selections choose
// alike.
type Selection struct {
	snap *[]*opSnap
	env  *[]string
}

// CurrentSelection returns the selection in force now.
func CurrentSelection() Selection {
	envChoicesOnce.Do(readEnvChoices)
	return Selection{snap: snapshot.Load(), env: envChoices.Load()}
}

// OpRef is an operation's index: CheckRef takes it to skip looking the
// operation up by name.
type OpRef int

// RefOf returns op's reference, -1 for an unknown operation.
func RefOf(op Operation) OpRef { return OpRef(opIndex(op)) }

// CheckRef validates a call of op (ref = RefOf(op)) as Call does, with
// Call's errors, and returns its size in the operation's own measure (what
// selection goes by).
func CheckRef(c Comm, op Operation, ref OpRef, a *Args) (int, error) {
	r := c.Rank()
	bytes, err := checkAt(int(ref), op, c.Size(), r, a)
	if err != nil {
		return 0, &Error{Op: op, Rank: r, Peer: -1, Err: err}
	}
	return bytes, nil
}

// CheckRefAt is CheckRef for rank r of a communicator of n ranks (c.Rank()
// and c.Size(), which the caller has at hand: two interface calls fewer).
func CheckRefAt(op Operation, ref OpRef, n, r int, a *Args) (int, error) {
	bytes, err := checkAt(int(ref), op, n, r, a)
	if err != nil {
		return 0, &Error{Op: op, Rank: r, Peer: -1, Err: err}
	}
	return bytes, nil
}

// SelectFor returns the algorithm Call would run for a call that CheckRef
// accepted with size bytes and no options, with Call's errors.
func SelectFor(c Comm, op Operation, a *Args, bytes int) (*Algorithm, error) {
	alg, err := choose(c, op, a, bytes, "")
	if err != nil {
		return nil, &Error{Op: op, Rank: c.Rank(), Peer: -1, Err: err}
	}
	return alg, nil
}

// RunChosen runs alg for a call without options, as Call does once it has
// chosen: it tells an AlgorithmObserver first, and its errors are Call's.
func RunChosen(c Comm, op Operation, alg *Algorithm, a *Args) error {
	if ob, ok := c.(AlgorithmObserver); ok {
		ob.RunningAlgorithm(op, alg.Name)
	}
	err := alg.Run(c, a)
	if err == nil {
		return nil
	}
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Rank: c.Rank(), Peer: -1, Err: err}
	}
	if e.Op == "" {
		e.Op, e.Algorithm = op, alg.Name
	}
	return e
}
