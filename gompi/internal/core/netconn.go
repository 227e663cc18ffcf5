//go:build linux

package core

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gompi/gompi/gompi/internal/base"
	"golang.org/x/sys/unix"
)

// Frames. Every frame is a 40-byte header, followed by a payload for eager
// and data frames. A header and its payload leave in one write (write or
// writev), and nothing is acknowledged that the protocol does not need.
//
//	eager  sender → receiver  a whole message of size ≤ netEagerMax bytes
//	                          (flag sync: the sender waits for an ack; id = its request)
//	rts    sender → receiver  "ready to send" size bytes; id = the send request
//	cts    receiver → sender  "clear to send" size bytes (the receive buffer's
//	                          share; fewer on truncation) to request id2; id = send request
//	data   sender → receiver  size payload bytes for receive request id, read by
//	                          the receiver straight from the socket into its buffer
//	ack    receiver → sender  a synchronous eager send with request id has matched
//	bye    either             the sender finalized: nothing more will come
//
// A connection carries the frames of one pair in both directions; TCP keeps
// each direction in order, which gives MPI's non-overtaking rule per sender.
const (
	frameEager = iota + 1
	frameRTS
	frameCTS
	frameData
	frameAck
	frameBye

	frameHdrSize = 40
	// netEagerMax is the largest message sent eagerly; larger ones take the
	// rendezvous, so that their payload is read once, into the posted
	// buffer. (Open MPI's TCP transport uses the same 64 KiB.)
	netEagerMax = 64 << 10
	// netOutMax bounds the payload bytes copied into one peer's output
	// queue. Past it an eager send is queued by reference instead: its
	// request completes once the kernel has taken it (netSend), so the
	// sender never waits for a receiver that does not read.
	netOutMax  = 4 << 20
	netReadBuf = 128 << 10
)

// DefaultTCPChunk caps one read or write system call unless
// GOMPI_TCP_CHUNK says otherwise: 512 KiB, about 100 µs of copying (rawIO).
const DefaultTCPChunk = 512 << 10

type frame struct {
	kind  uint8
	flags uint8
	tag   int32
	ctx   uint32
	size  int64
	id    uint64
	id2   uint64
}

func (f *frame) put(b []byte) {
	_ = b[frameHdrSize-1]
	b[0], b[1], b[2], b[3] = f.kind, f.flags, 0, 0
	binary.LittleEndian.PutUint32(b[4:], uint32(f.tag))
	binary.LittleEndian.PutUint32(b[8:], f.ctx)
	binary.LittleEndian.PutUint32(b[12:], 0)
	binary.LittleEndian.PutUint64(b[16:], uint64(f.size))
	binary.LittleEndian.PutUint64(b[24:], f.id)
	binary.LittleEndian.PutUint64(b[32:], f.id2)
}

func (f *frame) get(b []byte) {
	_ = b[frameHdrSize-1]
	f.kind, f.flags = b[0], b[1]
	f.tag = int32(binary.LittleEndian.Uint32(b[4:]))
	f.ctx = binary.LittleEndian.Uint32(b[8:])
	f.size = int64(binary.LittleEndian.Uint64(b[16:]))
	f.id = binary.LittleEndian.Uint64(b[24:])
	f.id2 = binary.LittleEndian.Uint64(b[32:])
}

// Connection states.
const (
	connUp     = 0
	connBye    = 1 // the peer finalized
	connBroken = 2 // closed without a goodbye, or an I/O error
)

// outItem is what is left to write of one frame.
type outItem struct {
	hdr  [frameHdrSize]byte
	hoff int      // header bytes already written
	data []byte   // payload left to write
	req  *Request // owns data when set (no copy was made)
	done bool     // complete req when the item is written
}

// netConn is the connection to one peer.
type netConn struct {
	chunk int // the most bytes one read or write system call moves
	peer  int32
	host  string
	fd    int
	file  *os.File // owns fd

	state atomic.Uint32
	why   error // set before state becomes connBroken
	armed atomic.Bool

	// Registration in the epoll set (under netEvents.imu).
	detached   bool
	outWatched bool

	// Read side: only the holder of the Proc's lock touches it.
	rbuf     []byte
	rlo, rhi int
	inPay    bool     // a payload is being read
	hdr      frame    // the frame whose payload is being read
	dst      []byte   // where the rest of the payload goes
	discard  int64    // payload bytes to drop after dst (truncation, withdrawn receive)
	target   *Request // completes when the payload is in
	msg      *message // unexpected eager message being filled

	// Write side.
	wmu    sync.Mutex
	hbuf   [frameHdrSize]byte // the header being written
	wbuf   []byte
	iov    [2]unix.Iovec
	out    []*outItem
	outLen atomic.Int64 // bytes queued in out
	hasOut atomic.Bool
}

// newNetConn takes over the socket of c: the engine does its own
// non-blocking I/O on it from now on.
func newNetConn(peer int, c *net.TCPConn, host string, chunk int) (*netConn, error) {
	c.SetNoDelay(true)
	f, err := c.File()
	c.Close()
	if err != nil {
		return nil, err
	}
	fd := int(f.Fd())
	if err := unix.SetNonblock(fd, true); err != nil {
		f.Close()
		return nil, err
	}
	return &netConn{chunk: chunk, peer: int32(peer), host: host, fd: fd, file: f,
		rbuf: make([]byte, netReadBuf), wbuf: make([]byte, frameHdrSize+8192)}, nil
}

// shutdown closes the socket; the connection counts as broken from then on.
// Caller holds p.mu.
func (c *netConn) shutdown() {
	c.wmu.Lock()
	if c.state.Load() != connBroken {
		c.why = errors.New("this rank has finalized")
		c.state.Store(connBroken)
	}
	c.file.Close()
	c.wmu.Unlock()
}

// writeNow writes hdr and data with one system call (write for what fits the
// staging buffer, writev otherwise) and returns how many bytes went.
func (c *netConn) writeNow(hdr []byte, data []byte) (int, error) {
	data = data[:min(len(data), c.chunk)]
	for {
		var n int
		var err error
		if len(hdr)+len(data) <= len(c.wbuf) {
			k := copy(c.wbuf, hdr)
			k += copy(c.wbuf[k:], data)
			n, err = rawIO(unix.SYS_WRITE, c.fd, unsafe.Pointer(&c.wbuf[0]), k)
		} else {
			iov := c.iov[:0]
			if len(hdr) > 0 {
				v := unix.Iovec{Base: &hdr[0]}
				v.SetLen(len(hdr))
				iov = append(iov, v)
			}
			if len(data) > 0 {
				v := unix.Iovec{Base: &data[0]}
				v.SetLen(len(data))
				iov = append(iov, v)
			}
			n, err = rawIO(unix.SYS_WRITEV, c.fd, unsafe.Pointer(&iov[0]), len(iov))
		}
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return 0, nil
		case err != nil:
			return 0, err
		}
		return n, nil
	}
}

// send writes one frame, or queues what the kernel does not take. A queued
// payload is copied unless req keeps it alive (data frames, and eager sends
// past netOutMax reference the sender's buffer until written); with done,
// req completes once its frame is written. Nothing is allocated unless
// something is queued.
func (c *netConn) send(f *frame, data []byte, req *Request, done bool) (queued bool, err error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.state.Load() == connBroken {
		return false, c.why
	}
	h := &c.hbuf
	f.put(h[:])
	n := 0
	if len(c.out) == 0 {
		n, err = c.writeNow(h[:], data)
		if err != nil {
			return false, err
		}
		if n == frameHdrSize+len(data) {
			return false, nil
		}
	}
	it := &outItem{hdr: *h, req: req, done: done}
	if n >= frameHdrSize {
		it.hoff = frameHdrSize
		data = data[n-frameHdrSize:]
	} else {
		it.hoff = n
	}
	if req == nil && len(data) > 0 {
		data = append([]byte(nil), data...)
	}
	it.data = data
	c.out = append(c.out, it)
	c.outLen.Add(int64(frameHdrSize - it.hoff + len(data)))
	c.hasOut.Store(true)
	return true, nil
}

// sendCtl sends a frame without payload from the lock holder; a broken
// connection is noted, not returned: the requests of the peer fail with it.
func (c *netConn) sendCtl(p *Proc, f *frame) {
	if _, err := c.send(f, nil, nil, false); err != nil {
		p.netBreak(c, err)
	}
}

// flush writes what is queued for as long as the kernel takes it, and
// completes the data sends that are fully written. Caller holds p.mu.
func (c *netConn) flush(p *Proc) {
	c.wmu.Lock()
	var err error
	for len(c.out) > 0 {
		it := c.out[0]
		var n int
		n, err = c.writeNow(it.hdr[it.hoff:], it.data)
		if err != nil || n == 0 {
			break
		}
		c.outLen.Add(-int64(n))
		hl := frameHdrSize - it.hoff
		if n < hl {
			it.hoff += n
			continue
		}
		it.hoff = frameHdrSize
		it.data = it.data[n-hl:]
		if len(it.data) > 0 {
			continue
		}
		c.out[0] = nil
		c.out = c.out[1:]
		if r := it.req; r != nil && it.done && r.done.Load() == 0 {
			r.st = base.EmptyStatus
			p.complete(r)
		}
	}
	c.hasOut.Store(len(c.out) > 0)
	if len(c.out) == 0 {
		c.out = c.out[:0:0]
	}
	c.wmu.Unlock()
	if err != nil {
		p.netBreak(c, err)
	}
}

// netBreak marks c broken (or, with a nil error, its peer finalized) and
// fails what is bound to it: the payload being read and the data frames
// queued. Requests that wait on the peer otherwise fail through the
// liveness check, as for a peer in the segment. Caller holds p.mu.
func (p *Proc) netBreak(c *netConn, err error) {
	if c.state.Load() != connUp {
		return
	}
	detail := ""
	if err != nil {
		c.why = err
		detail = fmt.Sprintf("the connection to rank %d (host %s) was lost: %v", c.peer, c.host, err)
	} else {
		detail = fmt.Sprintf("rank %d (host %s) has finalized", c.peer, c.host)
	}
	fail := func(r *Request, op string) {
		if r == nil || r.done.Load() != 0 {
			return
		}
		if r.id != 0 {
			delete(p.inflight, r.id)
		}
		r.err = p.netLost(op, r, detail)
		p.complete(r)
	}
	if c.inPay {
		if c.hdr.kind == frameData || c.target != nil {
			detail += fmt.Sprintf(" mid-message (%d bytes of the payload not received)", int64(len(c.dst))+c.discard)
		}
		fail(c.target, "Recv")
		c.inPay, c.target, c.msg, c.dst = false, nil, nil, nil
	}
	c.wmu.Lock()
	for _, it := range c.out {
		fail(it.req, "Send")
	}
	c.out = nil
	c.outLen.Store(0)
	c.hasOut.Store(false)
	if err != nil {
		c.state.Store(connBroken)
	} else {
		c.state.Store(connBye)
	}
	c.wmu.Unlock()
	p.woke = true
}

var errClosedMidStream = errors.New("the peer closed the connection without a goodbye (it died or was killed)")

// rawIO makes a read, write or writev system call on a non-blocking socket
// without telling the Go scheduler: it cannot block, and a call that copies
// a large buffer would otherwise outlast the scheduler's 20 µs patience,
// which then moves this thread's processor to another thread, and the
// goroutine to yet another when the call returns — a context switch or two
// per large read or write, measured as a third of the bandwidth lost at
// 1 MiB. Sizes are capped by the connection's chunk so that a call stays
// short.
func rawIO(trap uintptr, fd int, p unsafe.Pointer, n int) (int, error) {
	r, _, e := unix.RawSyscall(trap, uintptr(fd), uintptr(p), uintptr(n))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}
