package gompi

import (
	"encoding/binary"

	"github.com/gompi/gompi/coll"
)

// A two-rank barrier after an open step arrives at once (issue 18, branch
// two8; core.Comm.ShmBarrierAhead has why it is safe). It may only when its
// signature is already in place in the barrier's half: a signature written
// there while the peer may still be checking the signatures of the step
// before the open one (same half) would read to it as a mismatch. Where it
// is not in place (the first barrier after another full step of that
// half's parity), the barrier takes its usual path, which writes it after
// the open step's release.

// codeBarrier is opCode(coll.OpBarrier).
var codeBarrier = opCode(coll.OpBarrier)

// barrierAhead runs a two-rank barrier (signature code, word, size 0) the
// short way where it may; done reports whether it ran.
func barrierAhead(x *collComm, code, word uint32) (done bool, err error) {
	c := x.c.c
	if !c.ShmPairOpen() {
		return false, nil
	}
	me := x.Rank()
	sig := c.ShmScratch()[me*sigSize : (me+1)*sigSize]
	if binary.LittleEndian.Uint64(sig[0:]) != uint64(code)|uint64(word)<<32 || binary.LittleEndian.Uint64(sig[8:sigSize]) != 0 {
		return false, nil
	}
	return true, checkAfter(x, c.ShmBarrierAhead())
}
