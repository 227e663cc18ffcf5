package mpiperf

import (
	"fmt"
	"strings"

	"github.com/gompi/gompi/benches/internal/params"
	"github.com/gompi/gompi/hwtopo"
)

// BufferPolicy says which memory the launches use (spec, error 4: cache
// effects).
type BufferPolicy int

// Buffer policies.
const (
	// Hot: every launch uses the same buffers, which stay in cache.
	Hot BufferPolicy = iota
	// Rotate: each launch takes the next buffers of an arena twice the size
	// of the last-level cache, so a launch finds its data out of cache.
	Rotate
)

func (b BufferPolicy) String() string {
	if b == Rotate {
		return "rotate"
	}
	return "hot"
}

// Set parses "hot" or "rotate"; *BufferPolicy is a pflag.Value.
func (b *BufferPolicy) Set(s string) error {
	switch strings.ToLower(s) {
	case "hot":
		*b = Hot
	case "rotate", "cold":
		*b = Rotate
	default:
		return fmt.Errorf("buffer policy %q: use hot or rotate", s)
	}
	return nil
}

// Type names the value in pflag's help.
func (*BufferPolicy) Type() string { return "policy" }

const line = 64 // cache line: buffers start on one

// pool hands out the buffers of the launches.
type pool struct {
	policy BufferPolicy
	arena  []byte
	off    int
}

// lastLevelCache returns the size of the largest cache, 32 MiB if unknown.
func lastLevelCache() int64 {
	if t, err := hwtopo.Discover(); err == nil {
		var llc int64
		for _, c := range t.Caches {
			llc = max(llc, c.Size)
		}
		if llc > 0 {
			return llc
		}
	}
	return 32 << 20
}

// newPool makes the pool of one rank. A rotating pool's arena is twice the
// last-level cache, touched once so that its pages exist.
func newPool(policy BufferPolicy, llc int64) *pool {
	p := &pool{policy: policy, arena: make([]byte, line)}
	if policy == Rotate {
		p.arena = make([]byte, 2*llc)
		for i := 0; i < len(p.arena); i += 4096 {
			p.arena[i] = 1
		}
	}
	return p
}

// describe says what the report says about the buffers.
func (p *pool) describe() string {
	if p.policy == Rotate {
		return fmt.Sprintf("rotate: each launch takes the next buffers of a %s arena (twice the last-level cache), cache-line aligned",
			params.FormatSize(int64(len(p.arena))))
	}
	return "hot: one set of buffers reused by every launch (in cache)"
}

// begin starts a launch: a hot pool hands out the same buffers again.
func (p *pool) begin() {
	if p.policy == Hot {
		p.off = 0
	}
}

// next returns b bytes (never nil: a nil send buffer means "in place").
func (p *pool) next(b int) []byte {
	step := (b + line - 1) / line * line
	if p.off+step > len(p.arena) {
		if p.policy == Hot || step > len(p.arena) {
			// A hot pool grows during the first launch of a test; a rotating
			// one only for a launch larger than its arena.
			grown := make([]byte, max(p.off+step, 2*len(p.arena)))
			if p.policy == Rotate {
				grown = make([]byte, 2*step)
			}
			p.arena = grown
		}
		p.off = 0
	}
	s := p.arena[p.off : p.off+b : p.off+b]
	p.off += step
	return s
}
