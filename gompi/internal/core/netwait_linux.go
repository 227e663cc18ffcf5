package core

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gompi/gompi/internal/shm"
	"golang.org/x/sys/unix"
)

// netBusy is how recently bytes must have moved for a waiter to keep from
// sleeping.
const netBusy = 500 * time.Microsecond

// How a waiting thread learns of TCP traffic.
//
// While it spins, it polls: every turn of the wait loop reads each socket
// with a non-blocking read (pollLocked), so a message is seen as soon as
// the kernel has it, with no other thread involved — on this kind of
// machine waking a thread costs far more than the message itself.
//
// When it goes to sleep, two cases:
//
//   - pure (every peer is reached over TCP): the thread sleeps in
//     epoll_wait on the sockets themselves and an eventfd the rank's own
//     threads poke (ringSelf): data arriving wakes it directly, one wake-up,
//     as a C program blocked in recv.
//   - mixed (some peers share the segment): peers in the segment ring the
//     futex doorbell, so the thread sleeps there; a watcher goroutine blocked
//     in epoll_wait rings the doorbell when a socket becomes ready. The
//     sockets are registered EPOLLONESHOT and re-armed only by a thread about
//     to sleep, so while threads spin the watcher is not woken per message.
type netEvents struct {
	epfd     int
	efd      int // eventfd: wakes a pure sleeper, or tells the watcher to stop
	sleepers atomic.Int32
	mixed    bool
	done     chan struct{}
	imu      sync.Mutex // serializes changes of the registrations
}

const (
	epollIn  = unix.EPOLLIN | unix.EPOLLRDHUP
	epollOne = unix.EPOLLONESHOT
)

func (e *netEvents) start(n *netState) error {
	e.epfd, e.efd = -1, -1
	var err error
	if e.epfd, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC); err != nil {
		return fmt.Errorf("gompi: epoll_create1: %w", err)
	}
	if e.efd, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK); err != nil {
		return fmt.Errorf("gompi: eventfd: %w", err)
	}
	e.mixed = !n.pure
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(e.efd)}
	if err := unix.EpollCtl(e.epfd, unix.EPOLL_CTL_ADD, e.efd, &ev); err != nil {
		return fmt.Errorf("gompi: epoll_ctl: %w", err)
	}
	for _, c := range n.list {
		ev := unix.EpollEvent{Events: epollIn, Fd: int32(c.fd)}
		if e.mixed {
			ev.Events |= epollOne
		}
		if err := unix.EpollCtl(e.epfd, unix.EPOLL_CTL_ADD, c.fd, &ev); err != nil {
			return fmt.Errorf("gompi: epoll_ctl: %w", err)
		}
		c.armed.Store(true)
	}
	if e.mixed {
		e.done = make(chan struct{})
		go e.watch(n)
	}
	return nil
}

// watch is the mixed mode's watcher.
func (e *netEvents) watch(n *netState) {
	defer close(e.done)
	evs := make([]unix.EpollEvent, 16)
	for {
		k, err := unix.EpollWait(e.epfd, evs, -1)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return
		}
		for _, ev := range evs[:k] {
			if int(ev.Fd) == e.efd {
				return
			}
			if c := n.byFD[int(ev.Fd)]; c != nil {
				c.armed.Store(false)
			}
		}
		n.ready.Store(true)
		n.p.seg.Ring(n.p.local)
	}
}

// sleep blocks the calling thread until traffic may have arrived, the rank's
// own threads poke it, or d passes; ready is checked once the thread counts
// as a sleeper.
func (n *netState) sleep(d time.Duration, ready func() bool) {
	// A large message streams for milliseconds, longer than a waiter spins
	// before it sleeps; sleeping in the middle of it would stall the stream
	// (a full socket waits for a reader that sleeps) and pay a wake-up per
	// socket buffer. So while bytes moved in the last netBusy, only yield.
	if nanotime()-n.lastMove.Load() < int64(netBusy) {
		shm.Yield()
		return
	}
	e := &n.ev
	if e.mixed {
		n.arm()
		n.p.seg.Sleep(n.p.local, d, func() bool { return n.ready.Load() || ready() })
		return
	}
	e.imu.Lock()
	for _, c := range n.list {
		n.setInterest(c, 0)
	}
	e.imu.Unlock()
	e.sleepers.Add(1)
	if !ready() {
		var evs [8]unix.EpollEvent
		k, _ := unix.EpollWait(e.epfd, evs[:], int(d/time.Millisecond)+1)
		for _, ev := range evs[:max(k, 0)] {
			if int(ev.Fd) == e.efd {
				var b [8]byte
				unix.Read(e.efd, b[:])
			}
		}
	}
	e.sleepers.Add(-1)
}

// arm re-registers, before a sleep, the sockets whose one-shot event fired,
// and asks for writability where output waits.
func (n *netState) arm() {
	n.ev.imu.Lock()
	defer n.ev.imu.Unlock()
	for _, c := range n.list {
		if !c.armed.Load() || c.hasOut.Load() {
			n.setInterest(c, epollOne)
			c.armed.Store(true)
		}
	}
}

// setInterest updates c's registration: readable, and writable while output
// is queued; a connection that ended leaves the set.
func (n *netState) setInterest(c *netConn, extra uint32) {
	if c.state.Load() != connUp {
		if !c.detached {
			c.detached = true
			unix.EpollCtl(n.ev.epfd, unix.EPOLL_CTL_DEL, c.fd, nil)
		}
		return
	}
	out := c.hasOut.Load()
	if extra == 0 && out == c.outWatched {
		return
	}
	ev := unix.EpollEvent{Events: epollIn | extra, Fd: int32(c.fd)}
	if out {
		ev.Events |= unix.EPOLLOUT
	}
	c.outWatched = out
	unix.EpollCtl(n.ev.epfd, unix.EPOLL_CTL_MOD, c.fd, &ev)
}

// poke wakes a thread of this rank asleep in pure mode.
func (n *netState) poke() {
	if n.ev.sleepers.Load() != 0 {
		one := uint64(1)
		unix.Write(n.ev.efd, (*[8]byte)(unsafe.Pointer(&one))[:])
	}
}

func (e *netEvents) stop() {
	if e.efd >= 0 {
		one := uint64(1)
		unix.Write(e.efd, (*[8]byte)(unsafe.Pointer(&one))[:])
	}
	if e.done != nil {
		<-e.done
	}
	if e.epfd >= 0 {
		unix.Close(e.epfd)
	}
	if e.efd >= 0 {
		unix.Close(e.efd)
	}
}
