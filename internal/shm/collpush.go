package shm

import "sync/atomic"

// Push lines: per collective slot, two 640-byte lines per rank of the host
// (one per parity of a call) and a 64-byte line of acknowledgements per
// rank, outside the scratch halves and the steps. A rooted call of small
// blocks (gompi/shmcoll_push.go) has its root write each reader's block
// into that reader's own line, with a tag of the call, and leave; the
// reader waits for its line alone, copies the block and acknowledges the
// tag; the root writes a line again only once the call that last used it
// is acknowledged. Open MPI's fast boxes do the same for small messages:
// one box per receiver, nothing shared by all ranks. (640 bytes: a 512-byte
// block fits; with 128-byte lines the 512-byte Scatterv took the lines and
// then the slotted step, 1.8x its time before.)
//
// A line starts with a 64-bit tag (written last: the low half, the futex
// word, after the high half), then what the algorithm puts there; the
// acknowledgements (one 64-bit word per parity) are on a line of their own,
// which only the reader writes, so that the data line moves only from the
// root to the reader. A line nobody wrote holds zeros: tag =
// acknowledgement, free.

// PushLineSize is the size of one push line.
const PushLineSize = 640

// PushAckSize is the size of one rank's line of acknowledgements.
const PushAckSize = 64

// PushBigSize is the size of one rank's push area of one parity, after
// the lines of acknowledgements, on hosts of up to PushBigMaxRanks ranks:
// rank r's of parity p at 2n·PushLineSize + n·PushAckSize +
// (2r+p)·PushBigSize. A Gatherv contributor copies a block of up to this
// size there and leaves (gompi/shmcoll_pushgv.go); pages are touched only
// where used.
const PushBigSize = 32 << 10

// PushBigMaxRanks is the most ranks on a host whose slots have the push
// areas of PushBigSize (8 slots of 2·8·32 KiB: 4 MiB of address space at
// 8 ranks).
const PushBigMaxRanks = 8

// collPush is the size of one slot's push lines on a host of n ranks.
func collPush(n int) int64 {
	per := int64(2*PushLineSize + PushAckSize)
	if n <= PushBigMaxRanks {
		per += 2 * PushBigSize
	}
	return align(int64(n)*per, 4096)
}

// CollPush returns slot i's push lines: rank r's line of parity p at
// (2r+p)·PushLineSize, its acknowledgements at 2n·PushLineSize +
// r·PushAckSize, n the communicator's ranks (at most the host's).
func (s *Segment) CollPush(i int) []byte {
	size := collPush(s.l.NRanks)
	start := s.l.pushOff + int64(i)*size
	return s.mem[start : start+size : start+size]
}

// WakeWord wakes the ranks asleep on the word w (SleepWord), if any rank of
// the slot sleeps on such a word: for a word stored with StoreRelease32,
// after a fence (an atomic store or add) that follows the store.
func (c *CollCtl) WakeWord(w *uint32) {
	if atomic.LoadInt32(&c.wsleep) != 0 {
		futexWake(w)
	}
}
