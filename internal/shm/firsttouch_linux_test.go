package shm

import (
	"encoding/binary"
	"os"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mappedPages reports, for each page of mem, whether this process has it
// mapped (the present bit of /proc/self/pagemap).
func mappedPages(t *testing.T, mem []byte) []bool {
	t.Helper()
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Skip("no /proc/self/pagemap:", err)
	}
	defer f.Close()
	np := len(mem) / 4096
	buf := make([]byte, 8*np)
	if _, err := f.ReadAt(buf, int64(uintptr(unsafe.Pointer(&mem[0]))/4096*8)); err != nil {
		t.Skip("reading /proc/self/pagemap:", err)
	}
	out := make([]bool, np)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(buf[8*i:])&(1<<63) != 0
	}
	return out
}

// A rank that pops a cell another rank filled maps that cell's page only,
// not the neighbouring cells of the sender's pool (the kernel's
// fault-around on a first read), and what it reads is what was written.
func TestPopMapsOnlyThePoppedCell(t *testing.T) {
	l, err := NewLayout(2, DefaultCellsPerRank)
	if err != nil {
		t.Fatal(err)
	}
	sender, f, err := Create("touchtest", l)
	if err != nil {
		t.Skip("no memfd:", err)
	}
	defer f.Close()
	defer sender.Close()
	// Every cell of the sender's pool is in the page cache, as in a job
	// that has run a while.
	cells := sender.Cells(0)
	for i, off := range cells {
		c := sender.CellAt(off)
		c.Tag, c.PLen = int32(i), 8
		copy(sender.Payload(off, 8), "payload!")
	}
	fd, err := unix.Dup(int(f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	recv, err := Attach(fd) // a second mapping: the receiver's
	if err != nil {
		t.Fatal(err)
	}
	defer recv.Close()
	const k = 21
	sender.Push(1, cells[k])
	off := recv.Pop(1)
	if off != cells[k] {
		t.Fatalf("popped %d, want %d", off, cells[k])
	}
	if c := recv.CellAt(off); c.Tag != k || string(recv.Payload(off, int(c.PLen))) != "payload!" {
		t.Fatalf("cell read back as tag %d payload %q", c.Tag, recv.Payload(off, int(c.PLen)))
	}
	pages := mappedPages(t, recv.mem)
	first, last := cells[0]/4096, cells[len(cells)-1]/4096
	for p := first; p <= last; p++ {
		if want := p == off/4096; pages[p] != want {
			t.Errorf("receiver's page of cell %d mapped: %v, want %v", p-first, pages[p], want)
		}
	}
	// A second pop of the same cell does not write again (the bit is set),
	// and offsets outside the pool are ignored.
	recv.TouchCell(off)
	recv.TouchCell(0)
	recv.TouchCell(l.Size)
}
