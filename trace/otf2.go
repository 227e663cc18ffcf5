package trace

import (
	"bufio"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// OTF2 export, written in Go from the format as the OTF2 3.0 library writes
// it (an anchor file, global definitions, one event file and one local
// definition file per location), so that otf2-print, Vampir and Scalasca's
// tools read gompi traces without gompi linking the OTF2 library.
//
// What goes in: a location per rank (a process per rank under a system-tree
// node per host), a region per routine ("MPI_Send", ...), Enter/Leave per
// call, an MPI_SEND on the call that posted each matched message and an
// MPI_RECV on the call that completed it, on the message's communicator
// with ranks of that communicator, and MPI_COLLECTIVE_BEGIN/END inside
// every blocking collective. Every communicator is defined with its members
// as the trace recorded them (Trace.Comms).

// Record types of the OTF2 buffer format.
const (
	otf2Timestamp = 0x05
	otf2ChunkHead = 0x03
	otf2Endian    = 0x42

	otf2DefClock         = 0x05
	otf2DefString        = 0x0a
	otf2DefSystemTree    = 0x0c
	otf2DefLocationGroup = 0x0d
	otf2DefLocation      = 0x0e
	otf2DefRegion        = 0x0f
	otf2DefGroup         = 0x12
	otf2DefComm          = 0x16

	otf2Enter     = 0x0c
	otf2Leave     = 0x0d
	otf2MpiSend   = 0x0e
	otf2MpiRecv   = 0x12
	otf2CollBegin = 0x16
	otf2CollEnd   = 0x17

	otf2ChunkEvents = 1 << 20
	otf2ChunkDefs   = 4 << 20
	otf2Undefined   = 0xff // a compressed integer that is all ones
)

// Region roles and paradigm of OTF2.
const (
	roleFunction    = 1
	roleBarrier     = 15
	roleOne2All     = 23
	roleAll2One     = 24
	roleAll2All     = 25
	roleCollOther   = 26
	rolePoint2Point = 28
	paradigmMPI     = 4
)

// otf2Collectives gives each blocking collective its OTF2 operation and region role.
var otf2Collectives = map[string][2]uint8{
	"Barrier": {0, roleBarrier}, "Bcast": {1, roleOne2All}, "Gather": {2, roleAll2One}, "Gatherv": {3, roleAll2One},
	"Scatter": {4, roleOne2All}, "Scatterv": {5, roleOne2All}, "Allgather": {6, roleAll2All}, "Allgatherv": {7, roleAll2All},
	"Alltoall": {8, roleAll2All}, "Alltoallv": {9, roleAll2All}, "Alltoallw": {10, roleAll2All}, "Allreduce": {11, roleAll2All},
	"Reduce": {12, roleAll2One}, "Reduce_scatter": {13, roleAll2All}, "Scan": {14, roleCollOther}, "Exscan": {15, roleCollOther},
	"Reduce_scatter_block": {16, roleAll2All},
}

func otf2Role(name string) uint8 {
	if c, ok := otf2Collectives[name]; ok {
		return c[1]
	}
	if len(name) > 2 && name[0] == 'I' { // Ibcast: the region of a nonblocking collective
		if c, ok := otf2Collectives[strings.ToUpper(name[1:2])+name[2:]]; ok {
			return c[1]
		}
	}
	switch name {
	case "Init", "Finalize", "Comm_dup", "Comm_split", "Comm_free", "Comm_create", "Comm_create_group", "Comm_split_type",
		"Cart_create", "Request_free":
		return roleFunction
	}
	return rolePoint2Point
}

// obuf builds OTF2 buffer bytes.
type obuf struct{ b []byte }

func (o *obuf) u8(v uint8) { o.b = append(o.b, v) }

// cu writes a compressed integer: its byte count, then its significant
// bytes, little-endian; all ones (undefined) is the single byte 0xff.
func (o *obuf) cu(v uint64) {
	if v == math.MaxUint64 {
		o.b = append(o.b, otf2Undefined)
		return
	}
	n := 0
	for x := v; x != 0; x >>= 8 {
		n++
	}
	o.b = append(o.b, byte(n))
	for i := 0; i < n; i++ {
		o.b = append(o.b, byte(v>>(8*i)))
	}
}

// cu32 is cu for a 32-bit field, whose undefined value is 2^32−1.
func (o *obuf) cu32(v uint32) {
	if v == math.MaxUint32 {
		o.b = append(o.b, otf2Undefined)
		return
	}
	o.cu(uint64(v))
}

func (o *obuf) raw64(v uint64) { o.b = binary.LittleEndian.AppendUint64(o.b, v) }
func (o *obuf) str(s string)   { o.b = append(append(o.b, s...), 0) }

// record appends a record of type typ whose payload body writes.
func (o *obuf) record(typ uint8, body func(p *obuf)) {
	var p obuf
	body(&p)
	o.u8(typ)
	if len(p.b) < 0xff {
		o.u8(uint8(len(p.b)))
	} else {
		o.u8(0xff)
		o.raw64(uint64(len(p.b)))
	}
	o.b = append(o.b, p.b...)
}

func (o *obuf) chunkHeader(first, last uint64) {
	o.u8(otf2ChunkHead)
	o.u8(otf2Endian)
	o.raw64(first)
	o.raw64(last)
}

// otf2Defs collects the global definitions.
type otf2Defs struct {
	obuf
	count   int
	strings map[string]uint32
}

func (d *otf2Defs) def(typ uint8, body func(p *obuf)) {
	d.record(typ, body)
	d.count++
}

func (d *otf2Defs) str(s string) uint32 {
	if id, ok := d.strings[s]; ok {
		return id
	}
	id := uint32(len(d.strings))
	d.strings[s] = id
	d.def(otf2DefString, func(p *obuf) { p.cu32(id); p.str(s) })
	return id
}

// WriteOTF2 writes t as an OTF2 archive. anchor is the anchor file, a name
// ending in .otf2; the definitions go beside it (NAME.def) and the events of
// rank r into NAME/r.evt.
func WriteOTF2(anchor string, t *Trace) error {
	used := newCommUse()
	for r, rt := range t.Ranks {
		for i := range rt.Events {
			used.add(r, rt.Events[i].Comm)
		}
	}
	a, err := newOTF2Archive(anchor, t.Manifest, t.Ranks, otf2Comms(len(t.Ranks), used, t.Comms))
	if err != nil {
		return err
	}
	n := len(t.Ranks)
	// Messages by the rank that carries them (indices into t.Messages); each
	// rank's are indexed by event only while its file is written.
	sendsOf, recvsOf := make([][]int32, n), make([][]int32, n)
	for k, m := range t.Messages {
		sendsOf[m.Send.Rank] = append(sendsOf[m.Send.Rank], int32(k))
		recvsOf[m.RecvDone.Rank] = append(recvsOf[m.RecvDone.Rank], int32(k))
	}
	byEvent := func(ks []int32, ref func(m *Message) EventRef) map[int][]int32 {
		x := make(map[int][]int32, len(ks))
		for _, k := range ks {
			i := ref(&t.Messages[k]).Index
			x[i] = append(x[i], k)
		}
		return x
	}
	for r, rt := range t.Ranks {
		sends := byEvent(sendsOf[r], func(m *Message) EventRef { return m.Send })
		recvs := byEvent(recvsOf[r], func(m *Message) EventRef { return m.RecvDone })
		sendsOf[r], recvsOf[r] = nil, nil
		c, end, err := writeOTF2Events(a.eventFile(r), rt, a.region, a.comms, t.Messages, sends, recvs)
		if err != nil {
			return err
		}
		if err := a.located(r, c, end); err != nil {
			return err
		}
	}
	return a.finish()
}

// otf2Archive is an OTF2 archive being written: the event files one rank
// after the other (eventFile, located), then the definitions and the
// anchor (finish).
type otf2Archive struct {
	anchor, base string
	manifest     Manifest
	hosts        []string // by world rank
	regions      map[string]uint32
	regionNames  []string
	comms        otf2CommSet
	counts       []uint64 // events by location
	maxTS        uint64
}

// newOTF2Archive starts an archive for the ranks (their Info, not their
// events).
func newOTF2Archive(anchor string, m Manifest, ranks []*RankTrace, comms otf2CommSet) (*otf2Archive, error) {
	if !strings.HasSuffix(anchor, ".otf2") {
		return nil, fmt.Errorf("trace: an OTF2 anchor file's name ends in .otf2, not %q", filepath.Base(anchor))
	}
	a := &otf2Archive{anchor: anchor, base: strings.TrimSuffix(anchor, ".otf2"), manifest: m,
		regions: map[string]uint32{}, comms: comms, counts: make([]uint64, len(ranks))}
	if err := os.MkdirAll(a.base, 0o755); err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	for r, rt := range ranks {
		h := rt.Info["host"]
		if r < len(m.Hosts) && m.Hosts[r] != "" {
			h = m.Hosts[r]
		}
		a.hosts = append(a.hosts, h)
	}
	return a, nil
}

// region returns the id of the region of routine name (ids in the order
// first used).
func (a *otf2Archive) region(name string) uint32 {
	id, ok := a.regions[name]
	if !ok {
		id = uint32(len(a.regionNames))
		a.regions[name] = id
		a.regionNames = append(a.regionNames, name)
	}
	return id
}

func (a *otf2Archive) eventFile(r int) string { return filepath.Join(a.base, fmt.Sprintf("%d.evt", r)) }

// located records that rank r's event file is written (count events, the
// last at end) and writes its local definitions.
func (a *otf2Archive) located(r int, count, end uint64) error {
	a.counts[r] = count
	a.maxTS = max(a.maxTS, end)
	var ld obuf
	ld.chunkHeader(1, 0)
	ld.b = append(ld.b, 0x02, 0x01)
	if err := os.WriteFile(filepath.Join(a.base, fmt.Sprintf("%d.def", r)), ld.b, 0o644); err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	return nil
}

// finish writes the global definitions and the anchor.
func (a *otf2Archive) finish() error {
	n := len(a.counts)
	comms := a.comms
	regionNames := a.regionNames
	counts := a.counts
	maxTS := a.maxTS
	base := a.base
	anchor := a.anchor
	d := &otf2Defs{strings: map[string]uint32{}}
	d.chunkHeader(1, 0)
	d.def(otf2DefClock, func(p *obuf) {
		p.cu(1e9)   // ticks per second
		p.cu(0)     // global offset
		p.cu(maxTS) // length
		p.cu(uint64(a.manifest.Start.UnixNano()))
	})
	d.str("")
	machine := d.str("machine")
	d.def(otf2DefSystemTree, func(p *obuf) { p.cu32(0); p.cu32(machine); p.cu32(0); p.cu32(math.MaxUint32) })
	hostNode := map[string]uint32{}
	for r, h := range a.hosts {
		if _, ok := hostNode[h]; !ok {
			id := uint32(len(hostNode) + 1)
			name := d.str(h)
			d.def(otf2DefSystemTree, func(p *obuf) { p.cu32(id); p.cu32(name); p.cu32(0); p.cu32(0) })
			hostNode[h] = id
		}
		name := d.str(fmt.Sprintf("rank %d", r))
		d.def(otf2DefLocationGroup, func(p *obuf) {
			p.cu32(uint32(r))
			p.cu32(name)
			p.u8(1) // process
			p.cu32(hostNode[h])
			p.cu32(math.MaxUint32) // creating location group
		})
	}
	for r := 0; r < n; r++ {
		name := d.str(fmt.Sprintf("rank %d", r))
		d.def(otf2DefLocation, func(p *obuf) {
			p.cu(uint64(r))
			p.cu32(name)
			p.u8(1) // CPU thread
			p.cu(counts[r])
			p.cu32(uint32(r))
		})
	}
	for id, rn := range regionNames {
		name := d.str("MPI_" + rn)
		role := otf2Role(rn)
		d.def(otf2DefRegion, func(p *obuf) {
			p.cu32(uint32(id))
			p.cu32(name)
			p.cu32(0) // description ""
			p.u8(0)   // region type (before OTF2 1.1)
			p.cu32(math.MaxUint32)
			p.cu32(0)
			p.cu32(0)
			p.cu32(name) // canonical name
			p.u8(role)
			p.u8(paradigmMPI)
			p.cu32(0) // flags
		})
	}
	group := func(id uint32, name string, legacy, typ uint8, ranks []int) {
		nm := d.str(name)
		d.def(otf2DefGroup, func(p *obuf) {
			p.cu32(id)
			p.cu32(nm)
			p.u8(legacy)
			p.cu32(uint32(len(ranks)))
			for _, r := range ranks {
				p.cu(uint64(r))
			}
			p.u8(typ)
			p.u8(paradigmMPI)
			p.cu32(0)
		})
	}
	comm := func(id uint32, name string, grp uint32) {
		nm := d.str(name)
		d.def(otf2DefComm, func(p *obuf) { p.cu32(id); p.cu32(nm); p.cu32(grp); p.cu32(math.MaxUint32); p.cu32(0) })
	}
	all := make([]int, n)
	for r := range all {
		all[r] = r
	}
	group(0, "MPI locations", 6, 4, all) // COMM_LOCATIONS: locations by world rank
	group(1, "world", 4, 5, all)         // COMM_GROUP
	comm(0, "world", 1)
	for _, c := range comms.sub {
		oc := comms.byID[c]
		group(oc.id+1, fmt.Sprintf("comm %d", c), 4, 5, oc.members)
		comm(oc.id, fmt.Sprintf("comm %d", c), oc.id+1)
	}
	d.b = append(d.b, 0x02, 0x01)
	if err := os.WriteFile(base+".def", d.b, 0o644); err != nil {
		return fmt.Errorf("trace: %w", err)
	}

	var an obuf
	an.u8(otf2ChunkHead)
	an.u8(otf2Endian)
	an.str("OTF2")
	an.b = append(an.b, 3, 2, 3, 0, 2) // format and library version (3.0.2)
	an.raw64(otf2ChunkEvents)
	an.raw64(otf2ChunkDefs)
	an.u8(1) // POSIX files
	an.u8(1) // no compression
	an.raw64(uint64(n))
	an.raw64(uint64(d.count))
	an.str("") // machine
	an.str("gompi")
	an.str(strings.Join(a.manifest.Command, " "))
	an.b = binary.LittleEndian.AppendUint32(an.b, 0) // properties
	var id [8]byte
	rand.Read(id[:])
	an.b = append(an.b, id[:]...)
	an.b = binary.LittleEndian.AppendUint32(an.b, 0) // snapshots
	an.b = binary.LittleEndian.AppendUint32(an.b, 0) // thumbnails
	an.b = append(an.b, 0x02, 0x01, 0x00)
	if err := os.WriteFile(anchor, an.b, 0o644); err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	return nil
}

// otf2Comm is a communicator of the archive: its OTF2 id and its members
// (world ranks, in the communicator's rank order).
type otf2Comm struct {
	id      uint32
	members []int
	rankOf  map[int]int // world rank → rank in the communicator
}

// rank returns the rank of world rank w in the communicator (w itself when
// the communicator does not know it, which a consistent trace never asks).
func (c *otf2Comm) rank(w int) uint32 {
	if r, ok := c.rankOf[w]; ok {
		return uint32(r)
	}
	return uint32(w)
}

type otf2CommSet struct {
	byID map[uint32]*otf2Comm // by the trace's communicator id
	sub  []uint32             // the ids other than the world's, sorted
}

// commUse lists, for every communicator other than the world, the ranks
// that used it in world-rank order (ranks added in that order).
type commUse map[uint32][]int

func newCommUse() commUse { return commUse{} }

func (u commUse) add(r int, c uint32) {
	if c > 1 {
		if m := u[c]; len(m) == 0 || m[len(m)-1] != r {
			u[c] = append(m, r)
		}
	}
}

// otf2Comms gives every communicator an OTF2 communicator: the world is 0
// (group 1), every other id used one of its own with the members the trace
// recorded (members; files of version 1 recorded none: then its members are
// the ranks that used it, in world-rank order).
func otf2Comms(n int, used commUse, members map[uint32][]int32) otf2CommSet {
	cs := otf2CommSet{byID: map[uint32]*otf2Comm{}}
	world := &otf2Comm{id: 0, members: make([]int, n), rankOf: map[int]int{}}
	for r := range world.members {
		world.members[r], world.rankOf[r] = r, r
	}
	cs.byID[1] = world
	for c := range used {
		cs.sub = append(cs.sub, c)
	}
	sort.Slice(cs.sub, func(i, j int) bool { return cs.sub[i] < cs.sub[j] })
	for i, c := range cs.sub {
		oc := &otf2Comm{id: uint32(i + 1), members: used[c], rankOf: map[int]int{}}
		if m, ok := members[c]; ok {
			oc.members = make([]int, len(m))
			for k, w := range m {
				oc.members[k] = int(w)
			}
		}
		for k, w := range oc.members {
			oc.rankOf[w] = k
		}
		cs.byID[c] = oc
	}
	return cs
}

// comm returns the OTF2 communicator of trace id c (the world for an id
// the set does not know).
func (cs otf2CommSet) comm(c uint32) *otf2Comm {
	if oc, ok := cs.byID[c]; ok {
		return oc
	}
	return cs.byID[1]
}

// otf2Msg is a message end of an OTF2 event: the peer and communicator as
// the archive numbers them.
type otf2Msg struct {
	peer, comm, tag uint32
	bytes           uint64
}

func (m otf2Msg) put(p *obuf) {
	p.cu32(m.peer)
	p.cu32(m.comm)
	p.cu32(m.tag)
	p.cu(m.bytes)
}

// otf2Call is one call of a rank as the OTF2 writer takes it: the event,
// the messages it posted (MPI_SEND at its start) and the receives it
// completed (MPI_RECV at its end).
type otf2Call struct {
	e           Event
	name        string
	sends, recv []otf2Msg
}

// otf2Location writes one location's (rank's) event file as its calls come,
// in the order they began (ties: the longer first). Calls become
// Enter/Leave, properly nested (a call that outlives the call around it,
// which only goroutines of one rank overlapping can cause, is cut at its
// end). It holds one chunk and the calls open at the moment.
type otf2Location struct {
	f      *os.File
	w      *bufio.Writer
	region func(string) uint32
	comms  otf2CommSet
	stack  []otf2Open
	// Events go in chunks of otf2ChunkEvents bytes; each chunk starts with
	// its header and a timestamp, and is padded with zeros to its size
	// except the last.
	chunk             obuf
	rec               obuf
	first, last, tsAt uint64
	end               uint64 // the last timestamp
	err               error
}

type otf2Open struct {
	c   otf2Call
	end uint64
}

func createOTF2Location(path string, region func(string) uint32, comms otf2CommSet) (*otf2Location, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	l := &otf2Location{f: f, w: bufio.NewWriter(f), region: region, comms: comms}
	l.startChunk()
	return l, nil
}

func otf2ns(s float64) uint64 { return uint64(math.Max(0, math.Round(s*1e9))) }

// call adds the next call.
func (l *otf2Location) call(c otf2Call) {
	t0, t1 := otf2ns(c.e.T0), otf2ns(c.e.T1)
	for len(l.stack) > 0 && l.stack[len(l.stack)-1].end <= t0 {
		l.leave(l.stack[len(l.stack)-1])
		l.stack = l.stack[:len(l.stack)-1]
	}
	if len(l.stack) > 0 {
		t1 = min(t1, l.stack[len(l.stack)-1].end)
	}
	reg := l.region(c.name)
	l.rec.b = append(l.rec.b[:0], otf2Enter)
	l.rec.cu32(reg)
	l.add(t0)
	for _, m := range c.sends {
		l.rec.b = l.rec.b[:0]
		l.rec.record(otf2MpiSend, m.put)
		l.add(t0)
	}
	if _, ok := otf2Collectives[c.name]; ok && c.e.Flags&FlagError == 0 {
		l.rec.b = l.rec.b[:0]
		l.rec.record(otf2CollBegin, func(p *obuf) {})
		l.add(t0)
	}
	l.stack = append(l.stack, otf2Open{c, t1})
}

func (l *otf2Location) leave(o otf2Open) {
	e := &o.c.e
	reg := l.region(o.c.name)
	for _, m := range o.c.recv {
		l.rec.b = l.rec.b[:0]
		l.rec.record(otf2MpiRecv, m.put)
		l.add(o.end)
	}
	if op, ok := otf2Collectives[o.c.name]; ok && e.Flags&FlagError == 0 {
		c := l.comms.comm(e.Comm)
		root := uint32(math.MaxUint32)
		if e.Peer >= 0 {
			root = c.rank(int(e.Peer))
		}
		bytes := uint64(max(e.Bytes, 0))
		l.rec.b = l.rec.b[:0]
		l.rec.record(otf2CollEnd, func(p *obuf) {
			p.u8(op[0])
			p.cu32(c.id)
			p.cu32(root)
			p.cu(bytes)
			p.cu(bytes)
		})
		l.add(o.end)
	}
	l.rec.b = append(l.rec.b[:0], otf2Leave)
	l.rec.cu32(reg)
	l.add(o.end)
}

// add appends the record in l.rec at time ts.
func (l *otf2Location) add(ts uint64) {
	if len(l.chunk.b)+9+len(l.rec.b)+2 > otf2ChunkEvents {
		l.flush(false)
		l.startChunk()
	}
	if ts != l.tsAt {
		l.chunk.u8(otf2Timestamp)
		l.chunk.raw64(ts)
		l.tsAt = ts
	}
	l.chunk.b = append(l.chunk.b, l.rec.b...)
	l.last++
	l.end = ts
}

func (l *otf2Location) startChunk() {
	l.chunk.b = l.chunk.b[:0]
	l.chunk.chunkHeader(0, 0)
	l.first = l.last + 1
	l.tsAt = math.MaxUint64
}

func (l *otf2Location) flush(final bool) {
	var h obuf
	h.chunkHeader(l.first, l.last)
	copy(l.chunk.b, h.b)
	if final {
		l.chunk.b = append(l.chunk.b, 0x02, 0x01)
	} else {
		l.chunk.b = append(l.chunk.b, make([]byte, otf2ChunkEvents-len(l.chunk.b))...)
	}
	if _, err := l.w.Write(l.chunk.b); err != nil && l.err == nil {
		l.err = err
	}
}

// close ends the file and returns its number of events and last timestamp.
func (l *otf2Location) close() (uint64, uint64, error) {
	for len(l.stack) > 0 {
		l.leave(l.stack[len(l.stack)-1])
		l.stack = l.stack[:len(l.stack)-1]
	}
	l.flush(true)
	err := l.err
	if err == nil {
		err = l.w.Flush()
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, 0, fmt.Errorf("trace: %w", err)
	}
	return l.last, l.end, nil
}

// writeOTF2Events writes rank r's event file and returns the number of
// events and the last timestamp. sends and recvs give, by event index, the
// messages (indices into msgs) the event posted or completed.
func writeOTF2Events(path string, rt *RankTrace, region func(string) uint32, comms otf2CommSet,
	msgs []Message, sends, recvs map[int][]int32) (uint64, uint64, error) {
	order := make([]int, len(rt.Events))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		x, y := &rt.Events[order[a]], &rt.Events[order[b]]
		return x.T0 < y.T0 || x.T0 == y.T0 && x.T1 > y.T1
	})
	l, err := createOTF2Location(path, region, comms)
	if err != nil {
		return 0, 0, err
	}
	msg := func(k int32, peer func(m *Message) int) otf2Msg {
		m := &msgs[k]
		c := comms.comm(m.Comm)
		return otf2Msg{c.rank(peer(m)), c.id, uint32(m.Tag), uint64(max(m.Bytes, 0))}
	}
	for _, i := range order {
		c := otf2Call{e: rt.Events[i], name: rt.Name(&rt.Events[i])}
		for _, k := range sends[i] {
			c.sends = append(c.sends, msg(k, func(m *Message) int { return m.Dst }))
		}
		for _, k := range recvs[i] {
			c.recv = append(c.recv, msg(k, func(m *Message) int { return m.Src }))
		}
		l.call(c)
	}
	return l.close()
}
