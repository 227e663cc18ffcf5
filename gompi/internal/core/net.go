//go:build linux

package core

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gompi/gompi/gompi/internal/base"
	"github.com/gompi/gompi/internal/jobenv"
	"github.com/libp2p/go-reuseport"
	"golang.org/x/sys/unix"
)

// The TCP transport carries messages to peers that do not share this rank's
// segment: ranks on other hosts, or every peer under GOMPI_TRANSPORT=tcp.
//
// Connections. There is one connection per pair of ranks: the lower rank
// dials, the higher accepts, all at Init, so that a missing or unreachable
// peer is an error at Init that names it, not a hang at the first send.
// Addresses are exchanged through the job's rendezvous store (GOMPI_KVS);
// every connection proves the job secret first (jobenv.ProveDialer).
//
// Ranks listen with SO_REUSEPORT and dial from their listening port (both by
// go-reuseport's control function): every connection of the job then runs
// between two published listening addresses, so a connection's remote
// address names the rank at the other end in logs and in `ss`, and the
// acceptor can check the rank a dialer claims against the address it
// published. Where the kernel refuses that bind (a 4-tuple in TIME_WAIT), the
// dial falls back to an ephemeral port.
//
// After the proof a connection is a raw non-blocking socket owned by the
// engine: the thread that holds the Proc's lock reads it (see netpoll.go),
// so frames go through the same matching as cells from the segment.

// netState is the TCP side of one Proc.
type netState struct {
	p      *Proc
	conns  []*netConn // by world rank; nil for peers reached through the segment, and self
	list   []*netConn
	pfds   []unix.PollFd // for poll(2), in list's order
	byFD   map[int]*netConn
	secret []byte
	hosts  *jobenv.Job
	ln     net.Listener
	logf   func(format string, args ...any)

	// pure means every peer is reached over TCP: waiting threads then sleep
	// in epoll_wait on the sockets themselves (netpoll_linux.go).
	pure  bool
	ready atomic.Bool // the watcher saw a socket become ready since the last poll
	// lastMove is when a poll last found a socket ready (nanotime): while
	// bytes flow, a waiter yields instead of sleeping (netwait_linux.go).
	lastMove atomic.Int64
	ev       netEvents // epoll sets, eventfd, watcher

	closed atomic.Bool
}

// netInit connects this rank to every peer it reaches over TCP.
func netInit(p *Proc, job *jobenv.Job, tcpPeers []int) (*netState, error) {
	timeout := job.ConnectTimeout
	if timeout <= 0 {
		timeout = jobenv.DefaultConnectTimeout
	}
	me := job.Rank
	n := &netState{p: p, conns: make([]*netConn, job.Size), byFD: map[int]*netConn{}, hosts: job}
	n.logf = func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "gompi: rank %d (host %s): %s\n", me, job.HostOf(me), fmt.Sprintf(format, args...))
	}
	if job.KVS == "" {
		return nil, fmt.Errorf("gompi: rank %d has peers on other hosts (or GOMPI_TRANSPORT=tcp) but golaunch gave no rendezvous store (%s); start the job with golaunch", me, jobenv.KVS)
	}
	secret, err := jobenv.ReadSecret(job.SecretFD)
	if err != nil {
		return nil, err
	}
	n.secret = secret
	kv, err := dialRendezvous(job, secret, timeout)
	if err != nil {
		return nil, fmt.Errorf("gompi: rank %d: %w", me, err)
	}
	defer kv.Close()

	allLocal := true
	for _, w := range tcpPeers {
		allLocal = allLocal && job.HostOf(w) == job.HostOf(me)
	}
	lc := net.ListenConfig{Control: reuseport.Control}
	laddr := ":0"
	if allLocal {
		laddr = "127.0.0.1:0"
	}
	ln, err := lc.Listen(context.Background(), "tcp", laddr)
	if err != nil {
		return nil, fmt.Errorf("gompi: rank %d: listening for peers: %w", me, err)
	}
	n.ln = ln
	port := ln.Addr().(*net.TCPAddr).Port
	addrs, err := publishAddrs(port, allLocal, p.opts.TCPNet)
	if err != nil {
		ln.Close()
		return nil, err
	}
	if err := kv.Put(jobenv.AddrKey(me), strings.Join(addrs, ",")); err != nil {
		ln.Close()
		return nil, fmt.Errorf("gompi: rank %d: %w", me, err)
	}
	if err := kv.Fence(); err != nil {
		ln.Close()
		return nil, fmt.Errorf("gompi: rank %d: %w", me, err)
	}

	// Accept from lower ranks, dial higher ones.
	isPeer := make([]bool, job.Size)
	var expectIn int
	for _, w := range tcpPeers {
		isPeer[w] = true
		if w < me {
			expectIn++
		}
	}
	type arrival struct {
		rank int
		c    net.Conn
		err  error
	}
	arrivals := make(chan arrival, job.Size)
	var acceptMu sync.Mutex
	accepted := make([]bool, job.Size)
	go jobenv.AcceptProvenID(ln, secret, jobenv.RoleRank, timeout, func(c net.Conn, id uint32, err error) bool {
		if err != nil {
			n.logf("refused a connection from %v: %v", c.RemoteAddr(), err)
			return false
		}
		w := int(id)
		acceptMu.Lock()
		ok := w >= 0 && w < me && isPeer[w] && !accepted[w]
		if ok {
			accepted[w] = true
		}
		acceptMu.Unlock()
		if !ok || n.closed.Load() {
			n.logf("refused a connection from %v claiming rank %d: not a peer expected to connect", c.RemoteAddr(), w)
			return false
		}
		arrivals <- arrival{rank: w, c: c}
		return true
	})
	var dialers int
	for _, w := range tcpPeers {
		if w < me {
			continue
		}
		dialers++
		go func() {
			c, err := dialPeer(kv, job, me, w, port, secret, timeout, allLocal)
			arrivals <- arrival{rank: w, c: c, err: err}
		}()
	}
	// The store connection is shared by the dialers one lookup at a time
	// (dialPeer locks it). Wait for every connection, or the first failure.
	var errs []error
	got := map[int]net.Conn{}
	deadline := time.NewTimer(3 * timeout)
	defer deadline.Stop()
wait:
	for len(got) < dialers+expectIn && len(errs) == 0 {
		select {
		case a := <-arrivals:
			if a.err != nil {
				errs = append(errs, a.err)
			} else {
				got[a.rank] = a.c
			}
		case <-deadline.C:
			break wait
		}
	}
	var missing []string
	for _, w := range tcpPeers {
		if _, ok := got[w]; !ok && w < me && len(errs) == 0 {
			missing = append(missing, fmt.Sprintf("rank %d (host %s)", w, job.HostOf(w)))
		}
	}
	if len(missing) > 0 {
		errs = append(errs, fmt.Errorf("gompi: rank %d: no connection from %s within %v", me, strings.Join(missing, ", "), 3*timeout))
	}
	if len(errs) > 0 {
		for _, c := range got {
			c.Close()
		}
		ln.Close()
		return nil, errors.Join(errs...)
	}
	chunk := p.opts.TCPChunk
	if chunk <= 0 {
		chunk = DefaultTCPChunk
	}
	ranks := make([]int, 0, len(got))
	for w := range got {
		ranks = append(ranks, w)
	}
	sort.Ints(ranks)
	for _, w := range ranks {
		c, err := newNetConn(w, got[w].(*net.TCPConn), job.HostOf(w), chunk)
		if err != nil {
			for _, w := range ranks {
				got[w].Close()
			}
			ln.Close()
			return nil, fmt.Errorf("gompi: rank %d: connection to rank %d: %w", me, w, err)
		}
		n.conns[w] = c
		n.list = append(n.list, c)
		n.pfds = append(n.pfds, unix.PollFd{Fd: int32(c.fd), Events: unix.POLLIN | unix.POLLRDHUP})
		n.byFD[c.fd] = c
	}
	n.pure = true
	for w := 0; w < job.Size; w++ {
		if w != me && n.conns[w] == nil {
			n.pure = false
		}
	}
	if err := n.ev.start(n); err != nil {
		n.close(false)
		return nil, err
	}
	// Anything that connects from now on is a stranger (or a peer gone
	// mad): ProveListener refuses the first, the accepted table the second.
	return n, nil
}

// publishAddrs lists the addresses peers may dial: loopback only for a
// one-host job, else the addresses of this host's interfaces that are up
// (limited to GOMPI_TCP_NET when set), loopback last.
func publishAddrs(port int, allLocal bool, cidrOnly string) ([]string, error) {
	p := strconv.Itoa(port)
	loop := net.JoinHostPort("127.0.0.1", p)
	if allLocal {
		return []string{loop}, nil
	}
	var only *net.IPNet
	if v := cidrOnly; v != "" {
		_, cidr, err := net.ParseCIDR(v)
		if err != nil {
			return nil, fmt.Errorf("gompi: %s=%q is not a CIDR (e.g. 10.0.0.0/8)", jobenv.TCPNet, v)
		}
		only = cidr
	}
	ifaces, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("gompi: listing network interfaces: %w", err)
	}
	var out []string
	for _, ifc := range ifaces {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		as, _ := ifc.Addrs()
		for _, a := range as {
			ipn, ok := a.(*net.IPNet)
			if !ok || ipn.IP.IsLinkLocalUnicast() || (only != nil && !only.Contains(ipn.IP)) {
				continue
			}
			out = append(out, net.JoinHostPort(ipn.IP.String(), p))
		}
	}
	return append(out, loop), nil
}

var kvMu sync.Mutex // one store request at a time on the shared client

// dialPeer looks up rank w's address and connects to it, proving the secret.
func dialPeer(kv rendezvous, job *jobenv.Job, me, w, port int, secret []byte, timeout time.Duration, allLocal bool) (net.Conn, error) {
	host := job.HostOf(w)
	kvMu.Lock()
	v, ok, err := kv.Get(jobenv.AddrKey(w), timeout)
	kvMu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("gompi: rank %d: looking up rank %d: %w", me, w, err)
	}
	if !ok {
		return nil, fmt.Errorf("gompi: rank %d: rank %d (host %s) did not check in within %v: it never published its address (did it start and call Init?)", me, w, host, timeout)
	}
	cands := strings.Split(v, ",")
	sameHost := host != "" && host == job.HostOf(me)
	if !sameHost && len(cands) > 1 {
		cands = cands[:len(cands)-1] // loopback is last: only for peers on this host
	} else if sameHost {
		cands = cands[len(cands)-1:]
	}
	var errs []string
	for _, a := range cands {
		c, err := dialFrom(a, port, timeout)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if err := jobenv.ProveDialer(c, secret, jobenv.RoleRank, uint32(me), timeout); err != nil {
			c.Close()
			errs = append(errs, fmt.Sprintf("%s: %v", a, err))
			continue
		}
		return c, nil
	}
	return nil, fmt.Errorf("gompi: rank %d: cannot connect to rank %d (host %s): %s", me, w, host, strings.Join(errs, "; "))
}

// dialFrom connects to addr from this rank's listening port, or from any
// port if the kernel refuses that.
func dialFrom(addr string, port int, timeout time.Duration) (net.Conn, error) {
	d := net.Dialer{Timeout: timeout, Control: reuseport.Control, LocalAddr: &net.TCPAddr{Port: port}}
	c, err := d.Dial("tcp", addr)
	if err == nil {
		return c, nil
	}
	if errors.Is(err, syscall.EADDRINUSE) || errors.Is(err, syscall.EADDRNOTAVAIL) {
		return net.DialTimeout("tcp", addr, timeout)
	}
	return nil, err
}

// gone reports whether world rank w, reached over TCP, can no longer answer.
func (n *netState) gone(w int32) bool {
	c := n.conns[w]
	return c == nil || c.state.Load() != connUp
}

// lostDetail says why world rank w is gone, for ErrPeerLost.
func (n *netState) lostDetail(w int32) string {
	c := n.conns[w]
	if c == nil {
		return ""
	}
	switch c.state.Load() {
	case connBye:
		return fmt.Sprintf("rank %d (host %s) has finalized", w, c.host)
	case connBroken:
		return fmt.Sprintf("the connection to rank %d (host %s) was lost: %v", w, c.host, c.why)
	}
	return ""
}

// close ends the transport: a goodbye to every peer still connected (after
// what is queued for it), then the sockets. bye is false when Init failed.
func (n *netState) close(bye bool) {
	if n.closed.Swap(true) {
		return
	}
	p := n.p
	if bye {
		p.mu.Lock()
		for _, c := range n.list {
			if c.state.Load() == connUp {
				var h frame
				h.kind = frameBye
				c.sendCtl(p, &h)
			}
		}
		p.mu.Unlock()
		// Flush what is queued, briefly: a peer that reads nothing must
		// not hold up this rank's exit.
		deadline := time.Now().Add(2 * time.Second)
		for time.Now().Before(deadline) {
			busy := false
			p.mu.Lock()
			for _, c := range n.list {
				if c.state.Load() != connBroken && c.hasOut.Load() {
					c.flush(p)
					busy = busy || c.hasOut.Load()
				}
			}
			p.mu.Unlock()
			if !busy {
				break
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
	n.ev.stop()
	if n.ln != nil {
		n.ln.Close()
	}
	// Under the lock, so that no poll is using a descriptor as it closes.
	p.mu.Lock()
	for _, c := range n.list {
		c.shutdown()
	}
	p.mu.Unlock()
}

// netLost is ErrPeerLost for a request whose peer's connection broke.
func (p *Proc) netLost(op string, r *Request, detail string) error {
	return &base.Error{Op: op, Rank: r.comm.rank, Peer: r.comm.commRank(r.peer), Tag: int(r.tag), Err: base.ErrPeerLost,
		Detail: detail, Hint: base.HintPeerLost}
}
