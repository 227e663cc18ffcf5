package gompi

import (
	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/internal/shm"
)

// Two-rank steps with the data on the arrival word's line. On a two-rank
// communicator each rank arrives at a step by storing the step's number in
// a word of its own (shm.CollCtl), and its peer polls that word. A call whose
// data fit beside the word (up to PairLineData bytes per rank: every
// operation of runShm at 8 and 64 B) writes them there instead of into the
// scratch half: the peer then takes one cache miss for the arrival and the
// data together, as Open MPI's fast box does for a small message, instead of
// two in series (the word, then the scratch line). The signatures stay in
// the scratch half (written only when they change, so a loop of the same
// call reads them from its own cache), and are checked before any data are
// read: ranks that disagree may be in different modes, and never read each
// other's lines.
//
// The run functions stay as they are: they get a staging buffer laid out as
// the scratch half's data area would be, and the step helpers (meet,
// meetAsRoot, awaitRoot, post, arrive) copy this rank's part of it to its
// line before arriving and the peer's part from the peer's line after the
// wait. Which bytes are whose is the operation's business (lineRanges).

// lineBuf is the staging buffer's size: two ranks' parts of a line each.
const lineBuf = 256

// The reduce-scatters on two ranks (lineWide) take the whole data block
// beside the word, shm.PairWideData bytes per rank (branch two7: a 512-byte
// Reduce_scatter's 256-byte parts), and a staging buffer of lineBufWide:
// their data area holds both ranks' whole vectors, twice what crosses.
const lineBufWide = 4 * shm.PairWideData

// lineWide reports whether the layout kind uses the whole data block.
func lineWide(kind int8) bool { return kind == lineReduceScatter || kind == lineReduceScatterB }

// shmLineCall is the state of a call that runs on the lines (collComm.line).
type shmLineCall struct {
	on     bool
	lo, hi [2]int // the bytes of buf rank r writes and its peer reads
	buf    [lineBufWide]byte
}

// startLine sets the call up to run on the lines if n = 2 and its data fit;
// it returns the staging buffer the run function takes as its data area.
func startLine(x *collComm, s *shmAlg, a *coll.Args) ([]byte, bool) {
	size := x.c.c.ShmPairLineSize()
	if size <= 0 {
		return nil, false
	}
	pre := s.prepared()
	if !pre.lines { // plainShm(s) || countsKnown(s)
		return nil, false
	}
	limit := lineBuf
	if lineWide(pre.line) {
		size, limit = shm.PairWideData, lineBufWide
	}
	need := s.sigBytes(2, a)
	if need < 0 || need > limit {
		return nil, false
	}
	lo, hi, ok := lineRangesOf(pre.line, a, need)
	if !ok || hi[0]-lo[0] > size || hi[1]-lo[1] > size {
		return nil, false
	}
	l := &x.line
	l.on, l.lo, l.hi = true, lo, hi
	return l.buf[:need], true
}

// plainShm reports whether s is one of the plain shm algorithms (shmAlgs),
// whose data area is theirs alone; the single-copy ones that run through
// runShm (cma) keep their own use of the scratch half.
func plainShm(s *shmAlg) bool {
	for _, t := range shmAlgs {
		if t == s {
			return true
		}
	}
	return false
}

// countsKnown reports whether s is the shm Allgatherv or ReduceScatter
// (shmAlgsV): forms with per-rank counts that every rank knows, whose data
// area is laid out by the counts.
func countsKnown(s *shmAlg) bool {
	for _, t := range shmAlgsV {
		if t == s {
			return s.op == coll.OpAllgatherv || s.op == coll.OpReduceScatter
		}
	}
	return false
}

// The layouts of lineRanges, by operation: worked out once per algorithm
// at start-up (shmPre.line) instead of a switch over the operation's name
// (a string) on every call.
const (
	lineNone           int8 = iota
	lineBcast               // the root's message
	lineScatter             // the root's block for its peer
	lineVec                 // Reduce, Allreduce, Scan, Exscan, Gather, Allgather: rank r's vector or block at r·m
	lineAlltoall            // rank r's row at r·row
	lineReduceScatterB      // Reduce_scatter_block: rank r's vector at 2r·m
	lineAllgatherv          // by the counts
	lineReduceScatter       // by the counts
)

// lineKindOf is op's layout on the lines (lineNone: not on them).
func lineKindOf(op coll.Operation) int8 {
	switch op {
	case coll.OpBcast:
		return lineBcast
	case coll.OpScatter:
		return lineScatter
	case coll.OpReduce, coll.OpAllreduce, coll.OpScan, coll.OpExscan, coll.OpGather, coll.OpAllgather:
		return lineVec
	case coll.OpAlltoall:
		return lineAlltoall
	case coll.OpReduceScatterBlock:
		return lineReduceScatterB
	case coll.OpAllgatherv:
		return lineAllgatherv
	case coll.OpReduceScatter:
		return lineReduceScatter
	}
	return lineNone
}

// lineRanges returns, for each rank r of a two-rank call of op with data
// area need bytes long (laid out as in the scratch half), the bytes r
// writes that its peer reads: [lo[r], hi[r]).
func lineRanges(op coll.Operation, a *coll.Args, need int) (lo, hi [2]int, ok bool) {
	return lineRangesOf(lineKindOf(op), a, need)
}

// lineRangesOf is lineRanges for the layout kind (lineKindOf).
func lineRangesOf(kind int8, a *coll.Args, need int) (lo, hi [2]int, ok bool) {
	root := a.Root
	switch kind {
	case lineBcast, lineScatter:
		if root != 0 && root != 1 {
			return lo, hi, false
		}
		if kind == lineBcast {
			lo[root], hi[root] = 0, need // the message
		} else {
			m, p := need/2, 1-root
			lo[root], hi[root] = p*m, (p+1)*m // the peer's block
		}
	case lineVec:
		m := need / 2 // rank r's vector or block at r·m
		for r := range 2 {
			lo[r], hi[r] = r*m, (r+1)*m
		}
	case lineAlltoall:
		row := need / 2 // rank r's row at r·row, its block for rank p at r·row + p·m
		m := row / 2
		for r := range 2 {
			lo[r] = r*row + (1-r)*m
			hi[r] = lo[r] + m
		}
	case lineReduceScatterB:
		m := need / 4 // rank r's vector at 2r·m, block b of it at 2r·m + b·m
		for r := range 2 {
			lo[r] = 2*r*m + (1-r)*m
			hi[r] = lo[r] + m
		}
	case lineAllgatherv:
		c := a.RecvCounts // rank r's block at the sum of the counts before it
		lo[0], hi[0] = 0, c[0]
		lo[1], hi[1] = c[0], c[0]+c[1]
	case lineReduceScatter:
		c := a.RecvCounts // rank r's vector at r·total; its peer p reads p's part of it, at the sum of the counts before p
		total := c[0] + c[1]
		lo[0], hi[0] = c[0], total
		lo[1], hi[1] = total, total+c[0]
	default:
		return lo, hi, false
	}
	return lo, hi, true
}

// lineOut copies this rank's part of a call on the lines to its line of the
// next step: before it arrives.
func lineOut(x *collComm) {
	if !x.line.on {
		return
	}
	me := x.Rank()
	if lo, hi := x.line.lo[me], x.line.hi[me]; hi > lo {
		copy(x.c.c.ShmPairLine(me, false), x.line.buf[lo:hi])
	}
}

// lineIn copies the peer's part of a call on the lines from its line of
// the step just taken (prev: ShmStep has moved on) or awaited (awaitRoot),
// after the wait and the signature check.
func lineIn(x *collComm, prev bool) {
	if !x.line.on {
		return
	}
	p := 1 - x.Rank()
	if lo, hi := x.line.lo[p], x.line.hi[p]; hi > lo {
		copy(x.line.buf[lo:hi], x.c.c.ShmPairLine(p, prev))
	}
}

// post is ShmPost for a run function: this rank's part goes to its line
// first on a call on the lines.
func post(x *collComm) error {
	lineOut(x)
	return x.c.c.ShmPost()
}

// arrive is ShmArrive for a run function, as post.
func arrive(x *collComm) error {
	lineOut(x)
	return x.c.c.ShmArrive()
}
