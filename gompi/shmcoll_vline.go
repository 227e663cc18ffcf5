package gompi

import (
	"encoding/binary"

	"github.com/gompi/gompi/coll"
)

// Two-rank Gatherv, Scatterv, Alltoallv and Alltoallw on the arrival
// words' lines (shmcoll_line.go). The fixed-count forms ride the lines when
// their data fit; the per-count forms took the scratch slots (shm) or the
// single-copy layout (cma: a record, a table, the slots), two cache misses
// in series for the peer (the word, then the slot) and more stores, at
// 1.7-2.4x Open MPI's time at 8 and 64 B. Here a block that moves between
// the two ranks goes with its count on the sender's line: a 4-byte count,
// then up to pairVMax bytes.
//
// Each rank decides from its own counts, which agree with its peer's in a
// correct program: Gatherv's root from the count it expects of its peer,
// the peer from its send count; Scatterv alike; Alltoallv from both counts
// it has for its peer (sent and received), which are its peer's received
// and sent. The line form writes its own signature size (pairVSig), so
// ranks that decided differently (counts that disagree across the bound)
// get ErrMismatch from the signature check and read nothing of each other's
// lines; counts that disagree within the bound get it from the count on the
// line, as in the slotted forms. The rank's own block never moves between
// the ranks, so its size does not matter.
//
// Both "shm" (runShm) and "cma" (runCMAv) take this form where it applies:
// it is the same on either side, so ranks whose selection differed still
// agree.

// pairVMax is the largest block that goes on a line with its count.
const pairVMax = 120 - 4

// pairVSig is the size field of the line form's signature (the slotted
// forms write their need, 256 bytes on two ranks, and the cma forms 0).
const pairVSig = 1

// runPairV runs a two-rank Gatherv, Scatterv or Alltoallv/w on the lines if
// the call's blocks between the ranks fit; done is false (and nothing has
// been done) where it does not apply.
func runPairV(x *collComm, op coll.Operation, a *coll.Args) (done bool, err error) {
	if x.Size() != 2 || x.c.c.ShmPairLineSize() < 4+pairVMax {
		return false, nil
	}
	me := x.Rank()
	p := 1 - me
	switch op {
	case coll.OpGatherv:
		if a.Root != 0 && a.Root != 1 {
			return false, nil
		}
		if (me == a.Root && a.RecvCounts[p] > pairVMax) || (me != a.Root && len(a.Send) > pairVMax) {
			return false, nil
		}
		err = pairGatherv(x, a)
	case coll.OpScatterv:
		if a.Root != 0 && a.Root != 1 {
			return false, nil
		}
		if (me == a.Root && a.SendCounts[p] > pairVMax) || (me != a.Root && len(a.Recv) > pairVMax) {
			return false, nil
		}
		err = pairScatterv(x, a)
	case coll.OpAlltoallv, coll.OpAlltoallw:
		scounts := a.SendCounts
		if a.Send == nil {
			scounts = a.RecvCounts
		}
		if scounts[p] > pairVMax || a.RecvCounts[p] > pairVMax {
			return false, nil
		}
		err = pairAlltoallv(x, op, a)
	default:
		return false, nil
	}
	leadNext(x, op, a.Root)
	return true, err
}

// lineBlockOut writes count c and block b (c bytes, or nil for none) to this
// rank's line of the next step.
func lineBlockOut(x *collComm, c int, b []byte) {
	line := x.c.c.ShmPairLine(x.Rank(), false)
	binary.LittleEndian.PutUint32(line, uint32(c))
	copy(line[4:], b)
}

// lineBlockIn returns the count and block the peer wrote to its line of
// the step just taken (prev) or awaited.
func lineBlockIn(x *collComm, prev bool) (int, []byte) {
	line := x.c.c.ShmPairLine(1-x.Rank(), prev)
	c := int(binary.LittleEndian.Uint32(line))
	if c > pairVMax { // not written by the line form: the signatures said otherwise
		c = pairVMax
	}
	return c, line[4 : 4+c]
}

// pairGatherv: the peer writes its count and block and goes on; the root
// waits for it, checks the signatures and copies the block out.
func pairGatherv(x *collComm, a *coll.Args) error {
	me := x.Rank()
	if _, err := beginStepCode(x, codeGatherv, uint32(int32(a.Root)), pairVSig); err != nil {
		return err
	}
	if me != a.Root {
		lineBlockOut(x, len(a.Send), a.Send)
		return x.c.c.ShmArrive()
	}
	if a.Send != nil { // nil: in place, the root's block is there already
		copy(a.Recv[a.RecvDispls[me]:][:a.RecvCounts[me]], a.Send)
	}
	if err := meetAsRoot(x); err != nil {
		return err
	}
	p := 1 - me
	c, b := lineBlockIn(x, true)
	dst, err := recvBlock(a.Recv, a.RecvCounts, a.RecvDispls, p, c, me)
	copy(dst, b)
	return err
}

// pairScatterv: the root writes its peer's count and block, posts and goes
// on; the peer waits for the post, checks the root's signature, copies the
// block and arrives.
func pairScatterv(x *collComm, a *coll.Args) error {
	me := x.Rank()
	if _, err := beginStepCode(x, codeScatterv, uint32(int32(a.Root)), pairVSig); err != nil {
		return err
	}
	if me == a.Root {
		p := 1 - me
		c := a.SendCounts[p]
		lineBlockOut(x, c, a.Send[a.SendDispls[p]:][:c])
		if err := x.c.c.ShmPost(); err != nil {
			return err
		}
		if a.Recv != nil { // nil: in place, the root's block stays in send
			copy(a.Recv, a.Send[a.SendDispls[me]:][:a.SendCounts[me]])
		}
		return nil
	}
	if err := awaitRoot(x, a.Root); err != nil {
		return err
	}
	c, b := lineBlockIn(x, false)
	var err error
	if c != len(a.Recv) {
		err = countMismatch(a.Root, c, me, len(a.Recv))
	} else {
		copy(a.Recv, b)
	}
	if aerr := x.c.c.ShmArrive(); aerr != nil {
		return aerr
	}
	return err
}

// pairAlltoallv: each rank writes its peer's count and block, copies its
// own block, meets its peer and copies the peer's block out.
func pairAlltoallv(x *collComm, op coll.Operation, a *coll.Args) error {
	me := x.Rank()
	p := 1 - me
	if _, err := beginStep(x, op, uint32(int32(a.Root)), pairVSig); err != nil {
		return err
	}
	send, scounts, sdispls := a.Send, a.SendCounts, a.SendDispls
	if send == nil { // in place: the blocks to send are in recv
		send, scounts, sdispls = a.Recv, a.RecvCounts, a.RecvDispls
	}
	lineBlockOut(x, scounts[p], send[sdispls[p]:][:scounts[p]])
	var ownErr error
	if c := scounts[me]; c != a.RecvCounts[me] {
		ownErr = countMismatch(me, c, me, a.RecvCounts[me])
	} else if a.Send != nil {
		copy(a.Recv[a.RecvDispls[me]:][:c], a.Send[sdispls[me]:][:c])
	}
	if err := meet(x); err != nil {
		return err
	}
	c, b := lineBlockIn(x, true)
	dst, err := recvBlock(a.Recv, a.RecvCounts, a.RecvDispls, p, c, me)
	copy(dst, b)
	if ownErr != nil {
		return ownErr
	}
	return err
}
