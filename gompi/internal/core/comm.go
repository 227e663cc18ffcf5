package core

import (
	"encoding/binary"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/gompi/gompi/gompi/internal/base"
	"github.com/gompi/gompi/gompi/internal/core/match"
	"github.com/gompi/gompi/internal/shm"
)

// Comm is a communicator: a group of ranks (members, in communicator-rank
// order, as world ranks) and a context that keeps its messages apart from
// every other communicator's. Point-to-point traffic uses ctx, collective
// traffic ctx+1. Arguments are validated by the caller (the gompi package).
type Comm struct {
	p           *Proc
	ctx         uint32
	rank        int
	size        int
	members     []int32     // communicator rank → world rank
	group       match.Group // members and this rank, for AnySource receives when peers are lost
	lookup      []int32     // world rank → communicator rank (-1: not a member); nil for the world
	name        string
	collSeq     atomic.Uint32
	slot        int      // collective slot in the segment, -1 if none
	shmSeq      uint64   // shared-memory collectives run on it so far
	shmOpen     bool     // this rank arrived at step shmSeq-1 without waiting for its release
	shmLead     int      // 1 + the rank that leaves the next full steps first (ShmLeadNext); 0: none
	shmOrd      int      // how shmLead leads: first or last (shmleave.go)
	shmPollNext int      // polls the next step's release wait makes before it yields (ShmPollNextRelease); 0: none
	shm         shmCache // the slot's control block and scratch halves, once looked up
	user        any      // the API's communicator wrapping this one

	shmPosted bool // the open step (shmOpen) was this rank's post: see shmbarrier2.go
}

// SetUser records the API object that wraps c; User returns it.
func (c *Comm) SetUser(u any) { c.user = u }

// User returns what SetUser recorded.
func (c *Comm) User() any { return c.user }

func newComm(p *Proc, ctx uint32, rank int, members []int32, name string) *Comm {
	c := &Comm{p: p, ctx: ctx, rank: rank, size: len(members), members: members, name: name, slot: -1}
	c.group = match.Group{Self: int32(p.rank), Members: members}
	identity := len(members) == p.size
	for i, w := range members {
		identity = identity && int(w) == i
	}
	if !identity {
		c.lookup = make([]int32, p.size)
		for i := range c.lookup {
			c.lookup[i] = -1
		}
		for i, w := range members {
			c.lookup[w] = int32(i)
		}
	}
	return c
}

// Rank returns the calling rank's rank in c.
func (c *Comm) Rank() int { return c.rank }

// Size returns the number of ranks in c.
func (c *Comm) Size() int { return c.size }

// Name returns a name for messages ("world", "world.split(3)").
func (c *Comm) Name() string { return c.name }

// Proc returns the engine c belongs to.
func (c *Comm) Proc() *Proc { return c.p }

// WorldRank returns the world rank of communicator rank r.
func (c *Comm) WorldRank(r int) int { return int(c.members[r]) }

func (c *Comm) commRank(world int32) int {
	if c.lookup == nil || world < 0 {
		return int(world)
	}
	return int(c.lookup[world])
}

// requests of blocking calls are recycled: nothing refers to one once it
// has completed.
var reqPool = sync.Pool{New: func() any { return new(Request) }}

func (c *Comm) newReq(op uint8, buf []byte, peer, tag int, ctx uint32, mode int, pooled bool) *Request {
	var r *Request
	if pooled {
		r = reqPool.Get().(*Request)
	} else {
		r = new(Request)
	}
	r.p, r.comm, r.op, r.mode = c.p, c, op, uint8(mode)
	r.buf, r.tag, r.ctx = buf, int32(tag), ctx
	if peer >= 0 {
		r.peer = c.members[peer]
	} else {
		r.peer = int32(peer)
	}
	return r
}

func putReq(r *Request) {
	if r.done.Load() == 0 {
		return // still referenced by the engine
	}
	r.p, r.comm, r.buf, r.err, r.onDone, r.next = nil, nil, nil, nil, nil, nil
	r.rv = match.Recv[*Request]{}
	r.persistent, r.active, r.streams, r.counted, r.blocking = false, false, false, false, false
	r.id, r.got, r.size, r.sent, r.rreq = 0, 0, 0, 0, 0
	r.st = base.Status{}
	r.done.Store(0)
	reqPool.Put(r)
}

// Send sends buf to rank dest and returns when buf may be reused.
func (c *Comm) Send(buf []byte, dest, tag, mode int) error {
	return c.send(buf, dest, tag, c.ctx, mode)
}

// Recv receives into buf from rank src (or AnySource) with tag (or AnyTag).
func (c *Comm) Recv(buf []byte, src, tag int) (base.Status, error) {
	return c.recv(buf, src, tag, c.ctx)
}

// Isend starts a send; the request completes when buf may be reused.
func (c *Comm) Isend(buf []byte, dest, tag, mode int) (*Request, error) {
	return c.isend(buf, dest, tag, c.ctx, mode)
}

// IsendDone is Isend with a function that runs, under the engine's lock,
// when the send completes (before Isend returns, if it completes at once).
func (c *Comm) IsendDone(buf []byte, dest, tag, mode int, onDone func()) (*Request, error) {
	r := c.newReq(opSend, buf, dest, tag, c.ctx, mode, false)
	r.onDone = onDone
	if err := c.p.isend(r); err != nil {
		return nil, err
	}
	return r, nil
}

// Irecv posts a receive.
func (c *Comm) Irecv(buf []byte, src, tag int) *Request {
	return c.irecv(buf, src, tag, c.ctx)
}

// CollSend, CollRecv, CollIsend and CollIrecv are the point-to-point calls on
// the collective context, for the collective algorithms; tags there are
// assigned by CollTagBase.
func (c *Comm) CollSend(buf []byte, dest, tag int) error {
	return c.send(buf, dest, tag, c.ctx+1, ModeStandard)
}

// CollRecv receives on the collective context.
func (c *Comm) CollRecv(buf []byte, src, tag int) (base.Status, error) {
	return c.recv(buf, src, tag, c.ctx+1)
}

// CollIsend starts a send on the collective context. The request comes from
// a pool: its single Wait (as a CollRequest) gives it back.
func (c *Comm) CollIsend(buf []byte, dest, tag int) (*CollRequest, error) {
	r := c.newReq(opSend, buf, dest, tag, c.ctx+1, ModeStandard, true)
	if err := c.p.isend(r); err != nil {
		return nil, err
	}
	return (*CollRequest)(r), nil
}

// CollIrecv posts a receive on the collective context; like CollIsend, its
// request is pooled.
func (c *Comm) CollIrecv(buf []byte, src, tag int) *CollRequest {
	r := c.newReq(opRecv, buf, src, tag, c.ctx+1, 0, true)
	c.p.irecv(r)
	return (*CollRequest)(r)
}

// CollTagShift is the number of low tag bits left to one collective call.
const CollTagShift = 15

// CollTagBase returns the tag base of the next collective call on c. Every
// rank calls collectives on a communicator in the same order, so the bases
// agree; a call uses tags base..base+1<<CollTagShift-1. Bases wrap after
// 65536 calls, which is safe: messages of one pair and tag match in order.
func (c *Comm) CollTagBase() int {
	seq := c.collSeq.Add(1)
	return int(seq&0xffff) << CollTagShift
}

func (c *Comm) send(buf []byte, dest, tag int, ctx uint32, mode int) error {
	p := c.p
	if mode != ModeSync && len(buf) <= shm.BoxInlineRoomMax && p.sendInline(c.members[dest], buf, int32(tag), ctx) {
		return nil
	}
	r := c.newReq(opSend, buf, dest, tag, ctx, mode, true)
	r.blocking = true
	if err := p.isend(r); err != nil {
		return err
	}
	if r.done.Load() == 0 {
		p.enterWait()
		err := p.waitReq(r)
		p.leaveWait()
		if err != nil {
			return err
		}
	}
	err := r.err
	putReq(r)
	return err
}

func (c *Comm) recv(buf []byte, src, tag int, ctx uint32) (base.Status, error) {
	if st, ok := c.recvBox(buf, src, tag, ctx); ok {
		return st, nil
	}
	p := c.p
	r := c.newReq(opRecv, buf, src, tag, ctx, 0, true)
	r.blocking = true
	p.irecv(r)
	if r.done.Load() == 0 {
		p.enterWait()
		err := p.waitReq(r)
		p.leaveWait()
		if err != nil {
			putReq(r)
			return base.Status{}, err
		}
	}
	st, err := r.st, r.err
	putReq(r)
	return st, err
}

func (c *Comm) isend(buf []byte, dest, tag int, ctx uint32, mode int) (*Request, error) {
	r := c.newReq(opSend, buf, dest, tag, ctx, mode, false)
	if err := c.p.isend(r); err != nil {
		return nil, err
	}
	return r, nil
}

func (c *Comm) irecv(buf []byte, src, tag int, ctx uint32) *Request {
	r := c.newReq(opRecv, buf, src, tag, ctx, 0, false)
	c.p.irecv(r)
	return r
}

// SendInit makes a persistent send request; Start runs it.
func (c *Comm) SendInit(buf []byte, dest, tag, mode int) *Request {
	r := c.newReq(opSend, buf, dest, tag, c.ctx, mode, false)
	r.persistent = true
	r.done.Store(1)
	r.st = base.EmptyStatus
	return r
}

// RecvInit makes a persistent receive request; Start runs it.
func (c *Comm) RecvInit(buf []byte, src, tag int) *Request {
	r := c.newReq(opRecv, buf, src, tag, c.ctx, 0, false)
	r.persistent = true
	r.done.Store(1)
	r.st = base.EmptyStatus
	return r
}

// Probe blocks until a message matching (src, tag) can be received and
// describes it without receiving it.
func (c *Comm) Probe(src, tag int) (base.Status, error) {
	p := c.p
	var st base.Status
	w := int32(src)
	if src >= 0 {
		w = c.members[src]
	}
	probe := &Request{p: p, comm: c, op: opRecv, peer: w, tag: int32(tag), ctx: c.ctx}
	err := p.waitUntil(probe, func() bool {
		var ok bool
		st, ok = p.probe(c, w, int32(tag))
		return ok || probe.done.Load() != 0
	}, func() bool { return probe.done.Load() != 0 })
	if err == nil && probe.err != nil {
		err = probe.err
	}
	return st, err
}

// Iprobe reports whether a message matching (src, tag) can be received now.
func (c *Comm) Iprobe(src, tag int) (base.Status, bool) {
	w := int32(src)
	if src >= 0 {
		w = c.members[src]
	}
	return c.p.probe(c, w, int32(tag))
}

// Dup makes a communicator with the same ranks and a new context.
func (c *Comm) Dup() (*Comm, error) {
	recs, err := c.allgatherCtx(0, 0)
	if err != nil {
		return nil, err
	}
	members := append([]int32(nil), c.members...)
	d := newComm(c.p, c.p.agreeCtx(recs), c.rank, members, c.name+".dup")
	return d, d.setupShm()
}

// Split partitions c by color; within a color, ranks are ordered by key, then
// by rank in c. A negative color (Undefined) joins no communicator: nil.
func (c *Comm) Split(color, key int) (*Comm, error) {
	recs, err := c.allgatherCtx(int32(color), int32(key))
	if err != nil {
		return nil, err
	}
	ctx := c.p.agreeCtx(recs)
	if color < 0 {
		return nil, nil
	}
	type entry struct{ key, rank int32 }
	var group []entry
	for i, r := range recs {
		if r.color == int32(color) {
			group = append(group, entry{r.key, int32(i)})
		}
	}
	sort.SliceStable(group, func(i, j int) bool {
		if group[i].key != group[j].key {
			return group[i].key < group[j].key
		}
		return group[i].rank < group[j].rank
	})
	members := make([]int32, len(group))
	me := 0
	for i, e := range group {
		members[i] = c.members[e.rank]
		if int(e.rank) == c.rank {
			me = i
		}
	}
	d := newComm(c.p, ctx, me, members, fmt.Sprintf("%s.split(%d)", c.name, color))
	return d, d.setupShm()
}

type ctxRecord struct {
	color, key int32
	next       uint32
}

// agreeCtx takes the largest next-free context any member proposed: free on
// every member, so all of them can use it for the new communicator.
func (p *Proc) agreeCtx(recs []ctxRecord) uint32 {
	var ctx uint32
	for _, r := range recs {
		ctx = max(ctx, r.next)
	}
	p.ctxMu.Lock()
	p.nextCtx = max(p.nextCtx, ctx+2)
	p.ctxMu.Unlock()
	return ctx
}

// allgatherCtx collects (color, key, next free context) from every member by
// a ring on the collective context.
func (c *Comm) allgatherCtx(color, key int32) ([]ctxRecord, error) {
	const recSize = 12
	next := c.p.proposeCtx(0)
	buf := make([]byte, c.size*recSize)
	mine := buf[c.rank*recSize:]
	binary.LittleEndian.PutUint32(mine[0:], uint32(color))
	binary.LittleEndian.PutUint32(mine[4:], uint32(key))
	binary.LittleEndian.PutUint32(mine[8:], next)
	tag := c.CollTagBase()
	right, left := (c.rank+1)%c.size, (c.rank-1+c.size)%c.size
	for step := 0; step < c.size-1; step++ {
		out := (c.rank - step + c.size) % c.size
		in := (c.rank - step - 1 + c.size) % c.size
		req, err := c.CollIsend(buf[out*recSize:(out+1)*recSize], right, tag)
		if err != nil {
			return nil, err
		}
		if _, err := c.CollRecv(buf[in*recSize:(in+1)*recSize], left, tag); err != nil {
			return nil, err
		}
		if _, err := req.Wait(); err != nil {
			return nil, err
		}
	}
	recs := make([]ctxRecord, c.size)
	for i := range recs {
		b := buf[i*recSize:]
		recs[i] = ctxRecord{int32(binary.LittleEndian.Uint32(b[0:])), int32(binary.LittleEndian.Uint32(b[4:])),
			binary.LittleEndian.Uint32(b[8:])}
	}
	return recs, nil
}
