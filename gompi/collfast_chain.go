package gompi

import "github.com/gompi/gompi/coll"

// A kept choice of Scan's or Exscan's chain (shmcoll_scan.go), run
// directly as runKept runs a plain shm step: not through coll.RunChosen
// (the AlgorithmObserver's interface assertion and call, the registered
// closure). The chain sends no messages, so its calls take no tag base
// either (taglessAlgorithm); at two ranks it is what selection runs for
// both routines up to 16 KiB (docs/COLLECTIVES.md).

// The kinds of fastEntry.chain.
const (
	chainNone int8 = iota
	chainScan
	chainExscan
)

// chainKindOf says whether alg, chosen for op, is the chain, and whose.
func chainKindOf(op coll.Operation, alg *coll.Algorithm) int8 {
	if alg == nil || alg.Name != "chain" {
		return chainNone
	}
	switch op {
	case coll.OpScan:
		return chainScan
	case coll.OpExscan:
		return chainExscan
	}
	return chainNone
}

// runKeptChain runs the kept chain for a call of op, as coll.RunChosen
// would (the algorithm recorded for the trace, the same errors).
func runKeptChain(x *collComm, op coll.Operation, kind int8, a *coll.Args) error {
	x.algo = "chain"
	err := runChain(x, a, op, kind == chainScan)
	if err == nil {
		return nil
	}
	return keptErr(x, op, "chain", err)
}

// The chain's operation codes in its flags' signatures (opCode, an FNV hash
// of the name, worked out once instead of twice per call).
var (
	codeScan   = opCode(coll.OpScan)
	codeExscan = opCode(coll.OpExscan)
)

// chainCode is opCode(op) for Scan (inclusive) or Exscan.
func chainCode(inclusive bool) uint32 {
	if inclusive {
		return codeScan
	}
	return codeExscan
}
