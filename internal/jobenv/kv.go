package jobenv

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// The rendezvous store is a small key-value store that golaunch runs for a
// job (the role PMI plays for MPI): each rank publishes the address it
// listens on under AddrKey(rank) and looks up those of its peers. A rank
// reaches it over TCP at GOMPI_KVS after the secret proof (RoleKV); then
// requests and answers alternate:
//
//	put  'P' klen:u16 key vlen:u32 value           → 'k'
//	get  'G' klen:u16 key wait-ms:u32              → 'k' vlen:u32 value | 'n' (not there in time)
//
// A get waits up to wait-ms for the key to be put.

// AddrKey is the key under which world rank r publishes its address.
func AddrKey(r int) string { return fmt.Sprintf("addr.%d", r) }

// KV is a key-value store: the one golaunch keeps, or an agent's relay to it.
type KV interface {
	Put(key, value string)
	// Get returns the value of key, waiting up to wait for it to be put.
	Get(key string, wait time.Duration) (string, bool)
}

// Store is an in-memory KV. The zero value is ready to use.
type Store struct {
	mu      sync.Mutex
	m       map[string]string
	changed chan struct{} // closed and replaced at every put
}

// Put sets key to value and wakes every Get waiting for it.
func (s *Store) Put(key, value string) {
	s.mu.Lock()
	if s.m == nil {
		s.m = map[string]string{}
	}
	s.m[key] = value
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	s.mu.Unlock()
}

// Get returns key's value, waiting up to wait for it.
func (s *Store) Get(key string, wait time.Duration) (string, bool) {
	deadline := time.Now().Add(wait)
	for {
		s.mu.Lock()
		v, ok := s.m[key]
		if ok {
			s.mu.Unlock()
			return v, true
		}
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		ch := s.changed
		s.mu.Unlock()
		left := time.Until(deadline)
		if left <= 0 {
			return "", false
		}
		t := time.NewTimer(left)
		select {
		case <-ch:
		case <-t.C:
		}
		t.Stop()
	}
}

// Has reports whether key is set.
func (s *Store) Has(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.m[key]
	return ok
}

const (
	maxKey   = 1 << 10
	maxValue = 1 << 16
	maxWait  = time.Hour
)

// ServeKV answers store requests on l until l is closed. Every connection
// must first prove the secret; one that does not is closed and reported to
// logf, and nothing it sent is read as a request.
func ServeKV(l net.Listener, secret []byte, kv KV, proofTimeout time.Duration, logf func(format string, args ...any)) {
	AcceptProven(l, secret, RoleKV, proofTimeout, func(c net.Conn, err error) {
		if err != nil {
			logf("refused a connection to the rendezvous store from %v: %v", c.RemoteAddr(), err)
			return
		}
		serveKVConn(c, kv)
	})
}

// AcceptProven accepts connections on l until it is closed, and runs the
// listener's side of the proof on each in a goroutine of its own, so that a
// slow or silent stranger holds up nobody. handle gets every connection with
// the proof's outcome; a connection whose proof failed is closed after
// handle returns, and so is a proven one unless handle keeps it (keep).
func AcceptProven(l net.Listener, secret []byte, role byte, proofTimeout time.Duration, handle func(c net.Conn, err error)) {
	AcceptProvenID(l, secret, role, proofTimeout, func(c net.Conn, _ uint32, err error) bool {
		handle(c, err)
		return false
	})
}

// AcceptProvenID is AcceptProven that passes the id the dialer claimed;
// handle returns true to keep a proven connection open.
func AcceptProvenID(l net.Listener, secret []byte, role byte, proofTimeout time.Duration, handle func(c net.Conn, id uint32, err error) (keep bool)) {
	for {
		c, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		go func() {
			id, err := ProveListener(c, secret, role, proofTimeout)
			if !handle(c, id, err) || err != nil {
				c.Close()
			}
		}()
	}
}

func serveKVConn(c net.Conn, kv KV) {
	r := bufio.NewReader(c)
	for {
		op, err := r.ReadByte()
		if err != nil {
			return
		}
		var kl [2]byte
		if _, err := io.ReadFull(r, kl[:]); err != nil {
			return
		}
		klen := int(binary.LittleEndian.Uint16(kl[:]))
		if klen > maxKey {
			return
		}
		key := make([]byte, klen)
		var n [4]byte
		if _, err := io.ReadFull(r, key); err != nil {
			return
		}
		if _, err := io.ReadFull(r, n[:]); err != nil {
			return
		}
		x := binary.LittleEndian.Uint32(n[:])
		switch op {
		case 'P':
			if x > maxValue {
				return
			}
			val := make([]byte, x)
			if _, err := io.ReadFull(r, val); err != nil {
				return
			}
			kv.Put(string(key), string(val))
			if _, err := c.Write([]byte{'k'}); err != nil {
				return
			}
		case 'G':
			v, ok := kv.Get(string(key), min(time.Duration(x)*time.Millisecond, maxWait))
			var out []byte
			if ok {
				out = binary.LittleEndian.AppendUint32([]byte{'k'}, uint32(len(v)))
				out = append(out, v...)
			} else {
				out = []byte{'n'}
			}
			if _, err := c.Write(out); err != nil {
				return
			}
		default:
			return
		}
	}
}

// KVClient is a rank's connection to the rendezvous store. Its methods must
// not be called concurrently.
type KVClient struct {
	c net.Conn
	r *bufio.Reader
}

// DialKV connects to the store at addr and proves the secret.
func DialKV(addr string, secret []byte, timeout time.Duration) (*KVClient, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, fmt.Errorf("connecting to the rendezvous store at %s: %w", addr, err)
	}
	if err := ProveDialer(c, secret, RoleKV, 0, timeout); err != nil {
		c.Close()
		return nil, fmt.Errorf("rendezvous store at %s: %w", addr, err)
	}
	return &KVClient{c: c, r: bufio.NewReader(c)}, nil
}

// Close ends the connection.
func (k *KVClient) Close() error { return k.c.Close() }

// Put publishes key=value.
func (k *KVClient) Put(key, value string) error {
	msg := []byte{'P'}
	msg = binary.LittleEndian.AppendUint16(msg, uint16(len(key)))
	msg = append(msg, key...)
	msg = binary.LittleEndian.AppendUint32(msg, uint32(len(value)))
	msg = append(msg, value...)
	k.c.SetDeadline(time.Now().Add(30 * time.Second))
	defer k.c.SetDeadline(time.Time{})
	if _, err := k.c.Write(msg); err != nil {
		return fmt.Errorf("rendezvous store: put %s: %w", key, err)
	}
	if b, err := k.r.ReadByte(); err != nil || b != 'k' {
		return fmt.Errorf("rendezvous store: put %s: no acknowledgement (%v)", key, err)
	}
	return nil
}

// Get looks key up, waiting up to wait for it to be published; ok is false
// if it was not published in time.
func (k *KVClient) Get(key string, wait time.Duration) (value string, ok bool, err error) {
	msg := []byte{'G'}
	msg = binary.LittleEndian.AppendUint16(msg, uint16(len(key)))
	msg = append(msg, key...)
	msg = binary.LittleEndian.AppendUint32(msg, uint32(wait/time.Millisecond))
	k.c.SetDeadline(time.Now().Add(wait + 30*time.Second))
	defer k.c.SetDeadline(time.Time{})
	if _, err := k.c.Write(msg); err != nil {
		return "", false, fmt.Errorf("rendezvous store: get %s: %w", key, err)
	}
	b, err := k.r.ReadByte()
	if err != nil {
		return "", false, fmt.Errorf("rendezvous store: get %s: %w", key, err)
	}
	if b == 'n' {
		return "", false, nil
	}
	var n [4]byte
	if _, err := io.ReadFull(k.r, n[:]); err != nil {
		return "", false, err
	}
	v := make([]byte, binary.LittleEndian.Uint32(n[:]))
	if _, err := io.ReadFull(k.r, v); err != nil {
		return "", false, err
	}
	return string(v), true, nil
}
