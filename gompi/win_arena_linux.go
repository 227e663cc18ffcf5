package gompi

import (
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// An arena is a rank's memory for the windows it makes on the same-host
// path: one anonymous memory file (memfd) of arenaSize bytes, made at the
// rank's first such window and kept until the rank ends. Each window takes
// a chunk of it, and Free gives the chunk back. A peer maps the whole arena
// once, the first time a window joins the two ranks, and keeps the
// mapping. So a window whose ranks have all mapped each other's arenas
// needs no new file, no mapping and no agreement that the mappings
// worked: its creation is one exchange of sizes and offsets (newWindow).
// The file is sparse: only the pages the windows touch take memory.
type arena struct {
	mu     sync.Mutex
	f      *os.File       // open for the rank's life: peers open /proc/<pid>/fd/<fd>
	mem    []byte         // the whole arena, mapped here
	chunks firstFit       // chunks in use
	peers  map[int][]byte // world rank → that rank's arena, mapped here
}

const (
	// arenaSize is the virtual size of an arena; a window that does not
	// fit in what is free gets a memory file of its own.
	arenaSize = 64 << 20
	// chunkAlign rounds chunks to whole pages, so that a large one can be
	// given back to the kernel (clearChunk).
	chunkAlign = 4096
	// punchMin: from this size, a freed chunk's pages go back to the
	// kernel (they read as zeros again) rather than being cleared.
	punchMin = 256 << 10
)

var arenas sync.Map // *rank → *arena

// arenaOf returns r's arena, made at the first call; nil if it cannot be
// made (the window then makes a file of its own, which reports why).
func arenaOf(r *rank) *arena {
	if v, ok := arenas.Load(r); ok {
		return v.(*arena)
	}
	fd, err := unix.MemfdCreate("gompi-win-arena", unix.MFD_CLOEXEC)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(fd), "gompi-win-arena")
	if err := f.Truncate(arenaSize); err != nil {
		f.Close()
		return nil
	}
	m, err := unix.Mmap(fd, 0, arenaSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		f.Close()
		return nil
	}
	a := &arena{f: f, mem: m, peers: map[int][]byte{}}
	if v, loaded := arenas.LoadOrStore(r, a); loaded { // another goroutine of r was first
		unix.Munmap(m)
		f.Close()
		return v.(*arena)
	}
	return a
}

// alloc takes a chunk of at least n bytes (zeroed); ok is false when no
// gap of the arena is large enough.
func (a *arena) alloc(n int) (span, bool) {
	size := max((n+chunkAlign-1)/chunkAlign*chunkAlign, chunkAlign)
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.chunks.alloc(size, arenaSize)
}

// release gives back a chunk, zeroed for its next window. Every rank of
// its window is done with it (Free's barrier).
func (a *arena) release(s span) {
	n := s.end - s.start
	if n < punchMin || unix.Fallocate(int(a.f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, int64(s.start), int64(n)) != nil {
		clear(a.mem[s.start:s.end])
	} // else the pages are gone, in every mapping: they read as zeros
	a.mu.Lock()
	defer a.mu.Unlock()
	a.chunks.release(s)
}

// mapped reports whether this rank has mapped the arena of every rank of
// c but itself.
func (a *arena) mapped(c *Comm) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for r := range c.Size() {
		if r == c.Rank() {
			continue
		}
		if _, ok := a.peers[c.WorldRank(r)]; !ok {
			return false
		}
	}
	return true
}

// peer returns the arena of world rank wr (of process pid, descriptor fd),
// mapping it at the first call.
func (a *arena) peer(wr, pid, fd int) ([]byte, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if m, ok := a.peers[wr]; ok {
		return m, nil
	}
	m, err := mapPeer(pid, fd, arenaSize)
	if err != nil {
		return nil, err
	}
	a.peers[wr] = m
	return m, nil
}

// mappedPeer returns the arena of world rank wr, mapped before (mapped
// said so).
func (a *arena) mappedPeer(wr int) []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.peers[wr]
}

// releaseArena unmaps r's arena and its peers' at the end of the rank,
// unless a window still uses it (one never freed: its memory stays
// mapped, as MPI leaves it undefined).
func releaseArena(r *rank) {
	v, ok := arenas.Load(r)
	if !ok {
		return
	}
	a := v.(*arena)
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.chunks.used) > 0 {
		return
	}
	arenas.Delete(r)
	for _, m := range a.peers {
		unix.Munmap(m)
	}
	unix.Munmap(a.mem)
	a.f.Close()
	a.peers, a.mem = nil, nil
}
