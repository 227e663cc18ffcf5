// Package core is gompi's pure-Go engine: MPI matching, the eager and
// rendezvous protocols, and progress, over the shared-memory segment of the
// host (and, for peers elsewhere, the network transport).
//
// One Proc is one rank. Its inbound queue in the segment receives every
// message for it; whoever holds the Proc's lock drains that queue, matches
// each message against the posted receives (or keeps it as unexpected) and
// completes requests. Waiting threads drain it themselves; a background
// goroutine does so only while nonblocking operations are pending and no
// thread waits, so that communication progresses while the caller computes.
package core

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/gompi/gompi/gompi/internal/core/match"
	"github.com/gompi/gompi/internal/shm"
)

// Options tune one Proc.
type Options struct {
	// Oversubscribed means the host runs more ranks than it has CPUs: waiting
	// threads then give the CPU away almost at once instead of spinning.
	Oversubscribed bool
	// LedBarriers turns on the leave orders of a barrier after a rooted
	// collective when ranks outnumber CPUs (ShmLeadNext, ShmLeadLast). Off
	// by default: measured as a whole loop (collective and barrier), they
	// make the collective look faster and the pair no faster, often slower.
	LedBarriers bool
	// InProcess means the ranks are goroutines of one process.
	InProcess bool
	// Timeout bounds every blocking wait; 0 means none.
	Timeout time.Duration
	// NoCMA disables cross-memory attach (large messages are pipelined
	// through the segment instead).
	NoCMA bool
	// CMAMin is the smallest message copied by cross-memory attach; 0
	// means the default (DefaultCMAMin).
	CMAMin int64
	// Spin and Yield, when non-zero, override the waiting policy's windows.
	Spin, Yield time.Duration
	// NoProgress turns off the background progress goroutine.
	NoProgress bool
	// TCPChunk caps the bytes of one read or write system call on a TCP
	// connection (GOMPI_TCP_CHUNK); 0 means DefaultTCPChunk.
	TCPChunk int
	// TCPNet, if set, limits the addresses a rank publishes for TCP peers
	// on other hosts to this CIDR (GOMPI_TCP_NET).
	TCPNet string
	// Cancelled, if set, reports a non-nil error once the job is being torn
	// down from outside (the in-process mode's context).
	Cancelled func() error
}

// DefaultCMAMin is the smallest message copied by cross-memory attach unless
// GOMPI_SHM_CMA_MIN says otherwise (see rendezvous). Below it the two copies
// through cells are faster than the system call (about 3.5 µs here before
// the first byte moves, BenchmarkReadRemote in internal/shm). At 32 KiB the
// two were within the noise of each other while the source was on 4 KiB
// pages (docs/PERFORMANCE.md, "The single-copy threshold"); since a buffer
// sent again and again gets a huge page under it (shm.NoteSource) the single
// copy is 0.8-0.9 of the fragments' time there (PERFORMANCE.md, "Huge pages
// under 32 KiB-1 MiB point-to-point sources").
const DefaultCMAMin = 32 << 10

// Proc is the engine of one rank.
type Proc struct {
	rank, size int
	seg        *shm.Segment
	local      int       // this rank's index in the segment
	locals     []int32   // world rank → index in the segment, -1 if on another host
	net        *netState // peers reached over TCP; nil if none
	opts       Options
	pol        policy

	mu        sync.Mutex                       // guards the fields below up to the next blank line
	free      []int64                          // this rank's free cells
	match     match.Queues[*Request, *message] // posted receives, unexpected messages, lost peers
	inflight  map[uint64]*Request              // sends awaiting a reply; pipelined receives
	streams   []*Request                       // pipelined sends with fragments left to push
	nextID    uint64
	starved   bool       // waiting for cells to come back
	woke      bool       // this drain completed something: wake sleeping threads
	boxesUsed int        // outbound fast boxes given out
	queuedN   int32      // sends waiting in the peers' send queues (sendq.go)
	frags     fragCopier // how fragments are copied into cells (fragcopy.go)

	out           []peerOut               // sending state per world rank
	swept         []atomic.Bool           // per world rank: gone, and its requests failed (lost.go)
	sweepDeferred int                     // sweeps put off for a cell being linked (lost.go); under mu
	inboxes       atomic.Pointer[[]inbox] // fast boxes this rank reads (copy on write, under mu)

	hasStreams   atomic.Bool
	queued       atomic.Int32 // queuedN, for lock-free looks
	cmaOff       atomic.Bool  // cross-memory attach refused once: pipeline from now on
	cmaMin       int64        // smallest message copied by cross-memory attach
	waiters      atomic.Int32 // threads inside a wait
	pending      atomic.Int32 // incomplete nonblocking requests that need progress
	kick         chan struct{}
	progressOn   atomic.Bool
	progSleeping atomic.Bool // the progress goroutine sleeps on the doorbell
	quit         chan struct{}
	finalized    atomic.Bool
	bg           sync.WaitGroup // the progress goroutine and nonblocking collectives
	nbc          nbcList        // nonblocking collectives on shared-memory steps (nbc.go)
	abortCode    atomic.Int64   // in-process: set when this rank stopped by Abort

	ctxMu   sync.Mutex
	nextCtx uint32          // next free communicator context (even; ctx+1 is its collective context)
	claimed map[uint32]bool // contexts from nextCtx up held by CreateGroup calls still agreeing
	world   *Comm
}

func newProc(rank, size int, seg *shm.Segment, local int, locals []int32, opts Options) *Proc {
	p := &Proc{
		rank: rank, size: size, seg: seg, local: local, locals: locals, opts: opts,
		free:     seg.Cells(local),
		inflight: make(map[uint64]*Request),
		kick:     make(chan struct{}, 1),
		quit:     make(chan struct{}),
		nextCtx:  2,
	}
	p.pol = newPolicy(opts)
	useRawSleeps(opts)
	p.cmaMin = opts.CMAMin
	if p.cmaMin == 0 {
		p.cmaMin = DefaultCMAMin
	}
	p.out = make([]peerOut, size)
	p.swept = make([]atomic.Bool, size)
	p.inboxes.Store(new([]inbox))
	if opts.NoCMA {
		p.cmaOff.Store(true)
	}
	members := make([]int32, size)
	for i := range members {
		members[i] = int32(i)
	}
	p.world = newComm(p, 0, rank, members, "world")
	if p.localComm(members) {
		p.world.slot = 0 // the world's slot needs no agreement
	}
	return p
}

// World returns the communicator of all ranks.
func (p *Proc) World() *Comm { return p.world }

// Rank returns the world rank.
func (p *Proc) Rank() int { return p.rank }

// Size returns the world size.
func (p *Proc) Size() int { return p.size }

// Segment exposes the host segment (for the shared-memory collectives).
func (p *Proc) Segment() *shm.Segment { return p.seg }

// Local returns this rank's index in the host segment.
func (p *Proc) Local() int { return p.local }

// LocalIndex returns the segment index of a world rank, -1 if it runs on
// another host.
func (p *Proc) LocalIndex(world int) int { return int(p.locals[world]) }

// peerGone reports whether world rank w can no longer take part: it
// finalized, exited or died.
func (p *Proc) peerGone(w int32) bool {
	li := p.locals[w]
	if li < 0 {
		return p.net != nil && p.net.gone(w)
	}
	return p.seg.State(int(li)) >= shm.StateFinalized
}

// newID returns a fresh request id. Caller holds mu.
func (p *Proc) newID() uint64 {
	p.nextID++
	return p.nextID
}

// Finalize ends this rank's part in the job: it marks the rank finalized
// (waking every peer, so that those waiting on it notice) and stops the
// progress goroutine. Messages already sent stay deliverable.
//
// It first waits for this rank's background goroutines (the progress
// goroutine, nonblocking collectives still running), since the segment may
// be unmapped as soon as it returns.
func (p *Proc) Finalize(state uint32) {
	if p.finalized.Load() {
		return
	}
	p.settleShm() // the ranks still in a shared-memory step this rank arrived at must not find it gone
	if p.finalized.Swap(true) {
		return
	}
	close(p.quit)
	p.ringSelf() // the progress goroutine may sleep on the doorbell
	p.bg.Wait()
	p.seg.SetState(p.local, state)
}

// Abort marks the whole job as aborting with the given exit code.
func (p *Proc) Abort(code int) {
	p.seg.Abort(p.rank, code)
	pmiAbort(p.rank, code) // started by srun: Slurm cancels the step
}
