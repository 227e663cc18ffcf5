package core

import (
	"encoding/binary"
	"fmt"
)

// CreateGroup makes a communicator of the ranks of c listed, in that order
// (MPI_Comm_create_group). Only they call it, so they agree on its context
// among themselves, over c's collective context under the tag −2−tag: no
// collective uses a negative tag, nor receives AnyTag there. Calls by
// disjoint sets of ranks share no pair of ranks, so they cannot take each
// other's messages; calls that share ranks are made in the same order by
// the ranks they share (as MPI requires), and the messages of one pair and
// tag match in order. Calls running at once on one rank (from several
// goroutines, with distinct tags) cannot end on one context either: see
// agreeGroupCtx. The caller validates ranks (distinct ranks of c, the
// caller among them) and tag (0..MaxTag).
func (c *Comm) CreateGroup(ranks []int, tag int) (*Comm, error) {
	me := -1
	members := make([]int32, len(ranks))
	for i, r := range ranks {
		members[i] = c.members[r]
		if r == c.rank {
			me = i
		}
	}
	if me < 0 {
		return nil, fmt.Errorf("CreateGroup: rank %d of %s is not in the group", c.rank, c.name)
	}
	ring := groupRing{c: c, right: ranks[(me+1)%len(ranks)], left: ranks[(me-1+len(ranks))%len(ranks)],
		steps: len(ranks) - 1, tag: -2 - tag}
	ctx, err := c.p.agreeGroupCtx(ring)
	if err != nil {
		return nil, err
	}
	d := newComm(c.p, ctx, me, members, fmt.Sprintf("%s.group(%d)", c.name, tag))
	return d, d.setupShm()
}

// agreeGroupCtx finds a context free on every member of the ring. Each
// member proposes the lowest context it has free (from floor up), the ring
// takes the largest, and each member claims it; if every claim held it is
// the new communicator's, else those that held are released and the ring
// tries again above it. A claim holds where the context is above every
// context used and not claimed by a call still agreeing, so two calls
// running at once on one rank cannot both take one context.
func (p *Proc) agreeGroupCtx(ring groupRing) (uint32, error) {
	var floor uint32
	for {
		x, err := ring.max(p.proposeCtx(floor))
		if err != nil {
			return 0, err
		}
		held := p.claimCtx(x)
		refused := uint32(0)
		if !held {
			refused = 1
		}
		anyRefused, err := ring.max(refused)
		if err != nil {
			if held {
				p.releaseCtx(x, false)
			}
			return 0, err
		}
		if anyRefused == 0 {
			p.releaseCtx(x, true)
			return x, nil
		}
		if held {
			p.releaseCtx(x, false)
		}
		floor = x + 2
	}
}

// proposeCtx returns the lowest context from floor up that is free here.
func (p *Proc) proposeCtx(floor uint32) uint32 {
	p.ctxMu.Lock()
	defer p.ctxMu.Unlock()
	x := max(p.nextCtx, floor)
	for p.claimed[x] {
		x += 2
	}
	return x
}

// claimCtx takes x for a call still agreeing, if it is free.
func (p *Proc) claimCtx(x uint32) bool {
	p.ctxMu.Lock()
	defer p.ctxMu.Unlock()
	if x < p.nextCtx || p.claimed[x] {
		return false
	}
	if p.claimed == nil {
		p.claimed = map[uint32]bool{}
	}
	p.claimed[x] = true
	return true
}

// releaseCtx drops the claim on x; used says the agreement chose it, so
// that contexts up to it are never proposed again.
func (p *Proc) releaseCtx(x uint32, used bool) {
	p.ctxMu.Lock()
	defer p.ctxMu.Unlock()
	delete(p.claimed, x)
	if used {
		p.nextCtx = max(p.nextCtx, x+2)
	}
}

// groupRing is the ring of a CreateGroup's members over the parent's
// collective context.
type groupRing struct {
	c           *Comm
	right, left int // ranks of the parent
	steps       int // members − 1
	tag         int
}

// max returns the largest v of the members: each passes the largest it
// has seen to its right, members−1 times.
func (g groupRing) max(v uint32) (uint32, error) {
	var out, in [4]byte
	for range g.steps {
		binary.LittleEndian.PutUint32(out[:], v)
		req, err := g.c.CollIsend(out[:], g.right, g.tag)
		if err != nil {
			return 0, err
		}
		if _, err := g.c.CollRecv(in[:], g.left, g.tag); err != nil {
			req.Wait()
			return 0, err
		}
		if _, err := req.Wait(); err != nil {
			return 0, err
		}
		v = max(v, binary.LittleEndian.Uint32(in[:]))
	}
	return v, nil
}
