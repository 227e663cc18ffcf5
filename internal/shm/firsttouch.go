package shm

// A rank that receives a cell from a peer maps the cell's page into its own
// address space on the first access. If that access is a read, Linux maps
// not only that page but the pages around it that are already in the page
// cache ("fault-around", 64 KiB by default): for a cell pool, the 15 other
// cells of the sender's pool around it. The memory is shared and costs
// nothing more physically, but every such page counts in the receiver's
// resident set (RSS) and needs a page-table entry: at 64 ranks, one
// Alltoall of 1 KiB blocks made each rank map 5 MiB of other ranks' cells,
// 16 pages for each cell it actually read. A write fault on a shared
// mapping maps the one page, so the receiver writes to a cell before it
// first reads it: a word of the header that nobody reads (Cell.touch). A
// bit per cell remembers, per process, which cells were touched, so only
// the first message a process receives in each cell pays for the store;
// later ones pay a load and a branch.

// TouchCell makes sure this process has mapped the page of the cell at off
// with a write, before it reads the cell. The cell must be this process's
// to handle (popped from, or handed over by, a queue or box of its own),
// so that nobody else writes it meanwhile; the word written is one that no
// one reads. Safe for concurrent use.
func (s *Segment) TouchCell(off int64) {
	i := (off - s.l.cellOff) / CellSize
	if i < 0 || i >= int64(len(s.touched))*64 {
		return
	}
	w, b := &s.touched[i/64], uint64(1)<<(i%64)
	if w.Load()&b != 0 {
		return
	}
	// A plain store: an atomic one is, under the race detector, a load
	// first (its check for a bad address), which is the read fault this
	// store is here to avoid. The word is one nobody reads.
	s.CellAt(off).touch = 0
	w.Or(b)
}
