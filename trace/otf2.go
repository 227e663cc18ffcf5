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
	if !strings.HasSuffix(anchor, ".otf2") {
		return fmt.Errorf("trace: an OTF2 anchor file's name ends in .otf2, not %q", filepath.Base(anchor))
	}
	base := strings.TrimSuffix(anchor, ".otf2")
	if err := os.MkdirAll(base, 0o755); err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	n := len(t.Ranks)
	regions := map[string]uint32{}
	var regionNames []string
	region := func(name string) uint32 {
		id, ok := regions[name]
		if !ok {
			id = uint32(len(regionNames))
			regions[name] = id
			regionNames = append(regionNames, name)
		}
		return id
	}
	comms := otf2Comms(t)
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
	var maxTS uint64
	counts := make([]uint64, n)
	for r, rt := range t.Ranks {
		sends := byEvent(sendsOf[r], func(m *Message) EventRef { return m.Send })
		recvs := byEvent(recvsOf[r], func(m *Message) EventRef { return m.RecvDone })
		sendsOf[r], recvsOf[r] = nil, nil
		c, end, err := writeOTF2Events(filepath.Join(base, fmt.Sprintf("%d.evt", r)), rt, region, comms, t.Messages, sends, recvs)
		if err != nil {
			return err
		}
		counts[r] = c
		maxTS = max(maxTS, end)
		var ld obuf
		ld.chunkHeader(1, 0)
		ld.b = append(ld.b, 0x02, 0x01)
		if err := os.WriteFile(filepath.Join(base, fmt.Sprintf("%d.def", r)), ld.b, 0o644); err != nil {
			return fmt.Errorf("trace: %w", err)
		}
	}

	d := &otf2Defs{strings: map[string]uint32{}}
	d.chunkHeader(1, 0)
	d.def(otf2DefClock, func(p *obuf) {
		p.cu(1e9)   // ticks per second
		p.cu(0)     // global offset
		p.cu(maxTS) // length
		p.cu(uint64(t.Manifest.Start.UnixNano()))
	})
	d.str("")
	machine := d.str("machine")
	d.def(otf2DefSystemTree, func(p *obuf) { p.cu32(0); p.cu32(machine); p.cu32(0); p.cu32(math.MaxUint32) })
	hostNode := map[string]uint32{}
	for r, rt := range t.Ranks {
		h := rt.Info["host"]
		if r < len(t.Manifest.Hosts) && t.Manifest.Hosts[r] != "" {
			h = t.Manifest.Hosts[r]
		}
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
	for r := range t.Ranks {
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

	var a obuf
	a.u8(otf2ChunkHead)
	a.u8(otf2Endian)
	a.str("OTF2")
	a.b = append(a.b, 3, 2, 3, 0, 2) // format and library version (3.0.2)
	a.raw64(otf2ChunkEvents)
	a.raw64(otf2ChunkDefs)
	a.u8(1) // POSIX files
	a.u8(1) // no compression
	a.raw64(uint64(n))
	a.raw64(uint64(d.count))
	a.str("") // machine
	a.str("gompi")
	a.str(strings.Join(t.Manifest.Command, " "))
	a.b = binary.LittleEndian.AppendUint32(a.b, 0) // properties
	var id [8]byte
	rand.Read(id[:])
	a.b = append(a.b, id[:]...)
	a.b = binary.LittleEndian.AppendUint32(a.b, 0) // snapshots
	a.b = binary.LittleEndian.AppendUint32(a.b, 0) // thumbnails
	a.b = append(a.b, 0x02, 0x01, 0x00)
	if err := os.WriteFile(anchor, a.b, 0o644); err != nil {
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

// otf2Comms gives every communicator of t an OTF2 communicator: the world
// is 0 (group 1), every other id one of its own with the members the trace
// recorded (files of version 1 recorded none: then its members are the
// ranks that used it, in world-rank order).
func otf2Comms(t *Trace) otf2CommSet {
	n := len(t.Ranks)
	used := map[uint32][]int{}
	for r, rt := range t.Ranks {
		for i := range rt.Events {
			c := rt.Events[i].Comm
			if c > 1 {
				if m := used[c]; len(m) == 0 || m[len(m)-1] != r {
					used[c] = append(m, r)
				}
			}
		}
	}
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
		if m, ok := t.Comms[c]; ok {
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

// otf2Event is one OTF2 event of a rank before encoding.
type otf2Event struct {
	ts  uint64
	typ uint8
	rec func(p *obuf)
}

// writeOTF2Events writes rank r's event file and returns the number of
// events and the last timestamp. Calls become Enter/Leave, properly nested
// (a call that outlives the call around it, which only goroutines of one
// rank overlapping can cause, is cut at its end).
//
// sends and recvs give, by event index, the messages (indices into msgs)
// the event posted or completed.
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
	ns := func(s float64) uint64 { return uint64(math.Max(0, math.Round(s*1e9))) }
	var evs []otf2Event
	type open struct {
		idx int
		end uint64
	}
	var stack []open
	leave := func(o open) {
		e := &rt.Events[o.idx]
		name := rt.Name(e)
		reg := region(name)
		for _, k := range recvs[o.idx] {
			m := &msgs[k]
			c := comms.comm(m.Comm)
			evs = append(evs, otf2Event{o.end, otf2MpiRecv, func(p *obuf) {
				p.cu32(c.rank(m.Src))
				p.cu32(c.id)
				p.cu32(uint32(m.Tag))
				p.cu(uint64(max(m.Bytes, 0)))
			}})
		}
		if op, ok := otf2Collectives[name]; ok && e.Flags&FlagError == 0 {
			c := comms.comm(e.Comm)
			comm := c.id
			root := uint32(math.MaxUint32)
			if e.Peer >= 0 {
				root = c.rank(int(e.Peer))
			}
			bytes := uint64(max(e.Bytes, 0))
			evs = append(evs, otf2Event{o.end, otf2CollEnd, func(p *obuf) {
				p.u8(op[0])
				p.cu32(comm)
				p.cu32(root)
				p.cu(bytes)
				p.cu(bytes)
			}})
		}
		evs = append(evs, otf2Event{o.end, otf2Leave, func(p *obuf) { p.cu32(reg) }})
	}
	for _, i := range order {
		e := &rt.Events[i]
		t0, t1 := ns(e.T0), ns(e.T1)
		for len(stack) > 0 && stack[len(stack)-1].end <= t0 {
			leave(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 {
			t1 = min(t1, stack[len(stack)-1].end)
		}
		name := rt.Name(e)
		reg := region(name)
		evs = append(evs, otf2Event{t0, otf2Enter, func(p *obuf) { p.cu32(reg) }})
		for _, k := range sends[i] {
			m := &msgs[k]
			c := comms.comm(m.Comm)
			evs = append(evs, otf2Event{t0, otf2MpiSend, func(p *obuf) {
				p.cu32(c.rank(m.Dst))
				p.cu32(c.id)
				p.cu32(uint32(m.Tag))
				p.cu(uint64(max(m.Bytes, 0)))
			}})
		}
		if _, ok := otf2Collectives[name]; ok && e.Flags&FlagError == 0 {
			evs = append(evs, otf2Event{t0, otf2CollBegin, func(p *obuf) {}})
		}
		stack = append(stack, open{i, t1})
	}
	for len(stack) > 0 {
		leave(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
	}

	f, err := os.Create(path)
	if err != nil {
		return 0, 0, fmt.Errorf("trace: %w", err)
	}
	w := bufio.NewWriter(f)
	// Events go in chunks of otf2ChunkEvents bytes; each chunk starts with
	// its header and a timestamp, and is padded with zeros to its size
	// except the last.
	var chunk obuf
	var first uint64 = 1
	var last, lastTS uint64
	flush := func(final bool) error {
		var h obuf
		h.chunkHeader(first, last)
		copy(chunk.b, h.b)
		if final {
			chunk.b = append(chunk.b, 0x02, 0x01)
		} else {
			chunk.b = append(chunk.b, make([]byte, otf2ChunkEvents-len(chunk.b))...)
		}
		_, err := w.Write(chunk.b)
		return err
	}
	startChunk := func() {
		chunk.b = chunk.b[:0]
		chunk.chunkHeader(0, 0)
		first = last + 1
		lastTS = math.MaxUint64
	}
	startChunk()
	var rec obuf
	for _, ev := range evs {
		rec.b = rec.b[:0]
		if ev.typ == otf2Enter || ev.typ == otf2Leave {
			rec.u8(ev.typ)
			ev.rec(&rec)
		} else {
			rec.record(ev.typ, ev.rec)
		}
		if len(chunk.b)+9+len(rec.b)+2 > otf2ChunkEvents {
			if err := flush(false); err != nil {
				f.Close()
				return 0, 0, err
			}
			startChunk()
		}
		if ev.ts != lastTS {
			chunk.u8(otf2Timestamp)
			chunk.raw64(ev.ts)
			lastTS = ev.ts
		}
		chunk.b = append(chunk.b, rec.b...)
		last++
	}
	if err := flush(true); err != nil {
		f.Close()
		return 0, 0, err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, 0, err
	}
	var end uint64
	if len(evs) > 0 {
		end = evs[len(evs)-1].ts
	}
	return last, end, f.Close()
}
