package shm

import (
	"sync/atomic"
	"time"
	"unsafe"
)

// Collective slots: the part of the segment where the ranks of one
// communicator that lives entirely on this host run collectives directly in
// shared memory (Open MPI's coll/sm does the same). A slot holds an arrival
// counter, a release generation that waiting ranks sleep on, and a scratch
// area in two halves, used by alternate collectives.
//
// The protocol of collective number k on a communicator of n ranks: write
// this rank's part into half k%2, arrive (the counter reaches (k+1)·n with
// the last arrival, which publishes generation k+1 and wakes sleepers), wait
// for generation k+1, read what the operation needs. Before anyone writes
// half k%2 again (collective k+2), everyone has arrived at collective k+1,
// after finishing its reads of collective k: no further synchronization is
// needed.

// CollSlots is the number of slots per host. Slot 0 belongs to the world.
const CollSlots = 8

// A rooted collective may release its readers before everyone has arrived:
// its root arrives and posts (Post), and the readers wait for that post
// (Posted) instead of for the release. Posting is the root's arrival made
// visible on its own; the arrival counter still counts it.
//
// A slot of two ranks synchronizes without the counter: each rank has a
// word of its own, on its own cache line, that it sets to k+1 on arriving at
// collective k, and it waits for its peer's word. On the counter a step
// costs three cache-line hand-offs one after the other (each arrival takes
// the counter's line, the last one then writes the release word that the
// other polls); here the two arrivals go out at once, one hand-off each way,
// as a point-to-point exchange would. The root's arrival is its post.
//
// Each rank has two such words, one per parity of the step (collective k
// uses word k%2), each at the head of a 128-byte block whose other 120
// bytes carry up to PairLineData bytes of the step's data (PairData): a
// rank writes its data there, then arrives, and its peer, having seen the
// arrival, finds the data on the line it has just fetched (the first 56
// bytes share the word's cache line, the rest its adjacent one) instead of
// taking a second miss on a scratch half. Alternating by parity makes the
// blocks safe to reuse for the reason the scratch halves are: a rank writes
// block k%2 again at step k+2, after its peer has arrived at step k+1, so
// after it has read step k.
//
// A block is 384 bytes (three 128-byte pairs of lines): the data on the
// word's own pair are the first PairLineData bytes, which every operation on
// the lines uses; the reduce-scatters on two ranks use all PairWideData
// bytes (a 512-byte Reduce_scatter's 256-byte parts), whose rest the
// reader takes from the two line pairs after the word's.

// A slot of more than two ranks may also order who leaves a step: its
// leader (rank 0) leaves first, and the others wait until it has (Lead,
// Led). When ranks outnumber CPUs, which rank runs first after a release is
// up to the scheduler, and a rank that leaves first only to wait for
// another (a reader of a broadcast whose root still waits for a CPU) pays a
// context switch; rank 0 is the usual root, and leaving first it has posted
// before the others look. Ordering only the leaving keeps the release
// itself (Released, which ShmBegin waits for) free of any one rank.

// CollCtl is the control block of a slot.
type CollCtl struct {
	owner    uint32 // 0 free, else 1 + the context of the owning communicator
	posted   uint32 // 1 + the last collective whose root has posted; a futex word
	psleep   int32  // ranks asleep on posted
	wsleep   int32  // ranks asleep on a word in the scratch area (SleepWord)
	_        [112]byte
	arrive   uint64 // arrivals since the slot was claimed
	_        [120]byte
	gen      uint32 // collectives released; the futex word
	sleepers int32
	led      uint32 // 1 + the last collective whose leader has left it; a futex word
	lsleep   int32  // ranks asleep on led
	_        [112]byte
	pair     [2][2]pairWord // two-rank slots: each rank's arrivals, by step parity
}

// PairLineData is the number of data bytes a two-rank step's arrival word
// carries on its own pair of cache lines (the first bytes of PairData).
const PairLineData = 120

// PairWideData is the number of data bytes beside a two-rank step's
// arrival word in all (PairData's length): PairLineData on the word's pair
// of lines, the rest on the next two pairs.
const PairWideData = 376

// pairWord is one rank's arrival word of one step parity in a two-rank
// slot: 1 + the last collective of that parity it arrived at (a futex
// word), how many peers sleep on it, and the data of that step (PairData).
type pairWord struct {
	seq      uint32
	sleepers int32
	data     [PairWideData]byte
}

// word returns rank's arrival word of collective k in a two-rank slot.
func (c *CollCtl) word(rank int, k uint64) *pairWord { return &c.pair[rank][k&1] }

// PairData returns the data bytes beside rank's arrival word of collective
// k in a two-rank slot: rank writes them before it arrives at k, its peer
// reads them after it has seen that arrival and before it arrives at k+1.
func (c *CollCtl) PairData(rank int, k uint64) []byte { return c.word(rank, k).data[:] }

const collCtlSize = 1920

func init() {
	if unsafe.Sizeof(CollCtl{}) != collCtlSize {
		panic("shm: collective control block size changed")
	}
}

// collScratch is the size of one half of a slot's scratch area for n ranks
// on the host: 32 KiB per rank up to 8 ranks plus 4 KiB for the signatures
// (a 32 KiB block per rank of Reduce, Gather, Scatter, Allreduce, Scan and
// Allgatherv fits on 2..8 ranks: at 32 KiB the point-to-point algorithms
// that ran where it did not took 1.2-7x Open MPI's time), 4 KiB per rank
// beyond that (more from 65 ranks on), at least 64 KiB. Pages are touched
// only when used: a communicator touches only as much as its calls write,
// and at 64 ranks the half is 260 KiB, as it was 256 KiB before.
func collScratch(n int) int64 {
	return align(max(collScratchUsable(n), collScratchPairs(n)), 4096)
}

func collScratchUsable(n int) int64 {
	return align(max(64<<10, int64(min(n, 8))<<15+4<<10, int64(n)<<12), 4096)
}

// CollScratchSize returns the bytes of one scratch half (the length of
// CollScratch's slices; their capacity may be larger: collslot_pairs.go).
func (s *Segment) CollScratchSize() int { return int(collScratchUsable(s.l.NRanks)) }

func (s *Segment) slotOff(i int) int64 {
	return s.l.slotOff + int64(i)*(collCtlSize+2*collScratch(s.l.NRanks))
}

// CollCtlAt returns the control block of slot i.
func (s *Segment) CollCtlAt(i int) *CollCtl { return (*CollCtl)(unsafe.Pointer(&s.mem[s.slotOff(i)])) }

// CollScratch returns half h of slot i's scratch area.
func (s *Segment) CollScratch(i, h int) []byte {
	size := collScratch(s.l.NRanks)
	start := s.slotOff(i) + collCtlSize + int64(h)*size
	return s.mem[start : start+collScratchUsable(s.l.NRanks) : start+size]
}

// ClaimCollSlot takes a free slot for a communicator of n ranks with
// context ctx; -1 if none is free. Slot 0 is the world's. The new
// communicator's collectives are numbered from the returned base on: every
// control word of the slot only grows, so a rank of the slot's last owner
// still waiting for that owner's last step (released, so it no longer
// counts) never sees its word go back.
func (s *Segment) ClaimCollSlot(ctx uint32, n int) (slot int, base uint64) {
	for i := 1; i < CollSlots; i++ {
		c := s.CollCtlAt(i)
		if atomic.CompareAndSwapUint32(&c.owner, 0, ctx+1) {
			b := max(atomic.LoadUint32(&c.gen), atomic.LoadUint32(&c.posted), atomic.LoadUint32(&c.led))
			for r := range c.pair {
				for h := range c.pair[r] {
					b = max(b, atomic.LoadUint32(&c.pair[r][h].seq))
				}
			}
			atomic.StoreUint64(&c.arrive, uint64(b)*uint64(n))
			atomic.StoreUint32(&c.gen, b)
			atomic.StoreUint32(&c.posted, b)
			atomic.StoreUint32(&c.led, b)
			for r := range c.pair {
				for h := range c.pair[r] {
					atomic.StoreUint32(&c.pair[r][h].seq, b)
				}
			}
			return i, uint64(b)
		}
	}
	return -1, 0
}

// ReleaseCollSlot frees slot i.
func (s *Segment) ReleaseCollSlot(i int) {
	if i > 0 {
		atomic.StoreUint32(&s.CollCtlAt(i).owner, 0)
	}
}

// reached reports whether an arrival word (1 + the last collective counted)
// has counted collective k, robust to the word's wrap.
func reached(word uint32, k uint64) bool { return int32(word-uint32(k+1)) >= 0 }

// Arrive counts rank's arrival at collective k of a communicator of n
// ranks and reports whether it was the last; the last one releases the
// others. On a two-rank slot the arrival is rank's own word.
func (c *CollCtl) Arrive(k uint64, n, rank int) bool {
	if n == 2 {
		c.storeArrival(k, rank)
		return reached(atomic.LoadUint32(&c.word(1-rank, k).seq), k)
	}
	return c.arriveCount(k, n)
}

// arriveCount is Arrive on the shared counter.
func (c *CollCtl) arriveCount(k uint64, n int) bool {
	if atomic.AddUint64(&c.arrive, 1) != (k+1)*uint64(n) {
		return false
	}
	atomic.StoreUint32(&c.gen, uint32(k+1))
	if atomic.LoadInt32(&c.sleepers) != 0 {
		futexWake(&c.gen)
	}
	return true
}

// Released reports whether collective k of a communicator of n ranks has
// been released (every rank has arrived).
func (c *CollCtl) Released(k uint64, n int) bool {
	if n == 2 {
		return reached(atomic.LoadUint32(&c.word(0, k).seq), k) && reached(atomic.LoadUint32(&c.word(1, k).seq), k)
	}
	return c.releasedCount(k)
}

// releasedCount is Released on the shared counter's release word.
func (c *CollCtl) releasedCount(k uint64) bool { return atomic.LoadUint32(&c.gen) != uint32(k) }

// Sleep waits until collective k is released or d passes.
func (c *CollCtl) Sleep(k uint64, n int, d time.Duration) {
	if n == 2 {
		for r := range c.pair {
			if w := c.word(r, k); !reached(atomic.LoadUint32(&w.seq), k) {
				w.sleep(k, d)
				return
			}
		}
		return
	}
	atomic.AddInt32(&c.sleepers, 1)
	if !c.Released(k, n) {
		collWait(&c.gen, uint32(k), d)
	}
	atomic.AddInt32(&c.sleepers, -1)
}

// sleep waits until the word has counted collective k or d passes.
func (w *pairWord) sleep(k uint64, d time.Duration) {
	atomic.AddInt32(&w.sleepers, 1)
	if !fenceSleeper() { // makes up for a plain arrival's missing fence (arrive.go)
		d = min(d, fenceFailedNap)
	}
	if v := atomic.LoadUint32(&w.seq); !reached(v, k) {
		collWait(&w.seq, v, d)
	}
	atomic.AddInt32(&w.sleepers, -1)
}

// Post marks collective k as posted by its root and wakes the ranks asleep
// on it. The root calls it after writing what the readers need and before
// its Arrive: after it, the step can be released and the next root post
// step k+1, which a late Post of k would overwrite. On a two-rank slot the
// Arrive is the post.
func (c *CollCtl) Post(k uint64, n int) {
	if n == 2 {
		return
	}
	atomic.StoreUint32(&c.posted, uint32(k+1))
	if atomic.LoadInt32(&c.psleep) != 0 {
		futexWake(&c.posted)
	}
}

// Posted reports whether the root of collective k has posted.
func (c *CollCtl) Posted(k uint64, n, root int) bool {
	if n == 2 {
		return reached(atomic.LoadUint32(&c.word(root, k).seq), k)
	}
	return atomic.LoadUint32(&c.posted) == uint32(k+1)
}

// SleepPost waits until collective k is posted or d passes.
func (c *CollCtl) SleepPost(k uint64, n, root int, d time.Duration) {
	if n == 2 {
		c.word(root, k).sleep(k, d)
		return
	}
	atomic.AddInt32(&c.psleep, 1)
	if v := atomic.LoadUint32(&c.posted); v != uint32(k+1) {
		collWait(&c.posted, v, d)
	}
	atomic.AddInt32(&c.psleep, -1)
}

// Lead marks collective k as left by its leader and wakes the ranks asleep
// on it. The leader calls it once collective k is released.
func (c *CollCtl) Lead(k uint64) {
	atomic.StoreUint32(&c.led, uint32(k+1))
	if atomic.LoadInt32(&c.lsleep) != 0 {
		futexWake(&c.led)
	}
}

// Led reports whether the leader has left collective k.
func (c *CollCtl) Led(k uint64) bool { return reached(atomic.LoadUint32(&c.led), k) }

// SleepLead waits until the leader has left collective k or d passes.
func (c *CollCtl) SleepLead(k uint64, d time.Duration) {
	atomic.AddInt32(&c.lsleep, 1)
	if v := atomic.LoadUint32(&c.led); !reached(v, k) {
		collWait(&c.led, v, d)
	}
	atomic.AddInt32(&c.lsleep, -1)
}
