// Package rma holds the parts of one-sided communication that need no
// communicator: the active-message header a window's origin sends to its
// target, the element-wise accumulate operations, and the target's lock
// table. The gompi package moves the messages and keeps the epochs.
package rma

import (
	"encoding/binary"
	"errors"
)

// Kind is what an active message asks of its target.
type Kind uint8

// The active messages. Each is handled by the target's service goroutine in
// the order it arrives from one origin, so a Flush, an Unlock or a Complete
// answers only after every earlier operation of that origin took effect.
const (
	KindPut      Kind = iota + 1 // store the payload at disp
	KindGet                      // reply with count elements from disp
	KindAcc                      // combine the payload into disp with op
	KindGetAcc                   // reply with the old elements, then combine
	KindCAS                      // compare-and-swap one element
	KindLock                     // grant a lock (Lock field), reply when granted
	KindUnlock                   // release the lock, reply once done
	KindFlush                    // reply once every earlier operation took effect
	KindComplete                 // the origin's access epoch (PSCW) ended
	KindStop                     // the window is freed: the service ends
	kindEnd
)

var kindNames = [...]string{KindPut: "put", KindGet: "get", KindAcc: "accumulate", KindGetAcc: "get_accumulate",
	KindCAS: "compare_and_swap", KindLock: "lock", KindUnlock: "unlock", KindFlush: "flush", KindComplete: "complete",
	KindStop: "stop"}

func (k Kind) String() string {
	if k > 0 && k < kindEnd {
		return kindNames[k]
	}
	return "kind(?)"
}

// Lock types.
const (
	LockShared    uint8 = 1
	LockExclusive uint8 = 2
)

// Flags of a header.
const (
	// FlagInline: the payload follows the header in the same message;
	// otherwise it is a message of its own with tag Tag.
	FlagInline uint8 = 1 << iota
)

// HeaderSize is the encoded size of a Header.
const HeaderSize = 24

// Header is the fixed part of every active message.
type Header struct {
	Kind  Kind
	Op    OpCode // accumulate operation
	Lock  uint8  // lock type of KindLock and KindUnlock
	Flags uint8
	Tag   uint32 // the reply's tag; the payload's tag minus one
	Disp  uint64 // target displacement, in elements
	Count uint64 // elements
}

// Encode writes h into b[:HeaderSize].
func (h *Header) Encode(b []byte) {
	_ = b[HeaderSize-1]
	b[0], b[1], b[2], b[3] = byte(h.Kind), byte(h.Op), h.Lock, h.Flags
	binary.LittleEndian.PutUint32(b[4:], h.Tag)
	binary.LittleEndian.PutUint64(b[8:], h.Disp)
	binary.LittleEndian.PutUint64(b[16:], h.Count)
}

// ErrHeader: a message too short or naming an unknown kind or operation.
var ErrHeader = errors.New("rma: malformed active message")

// Decode reads a header from b and returns the bytes after it.
func (h *Header) Decode(b []byte) ([]byte, error) {
	if len(b) < HeaderSize {
		return nil, ErrHeader
	}
	h.Kind, h.Op, h.Lock, h.Flags = Kind(b[0]), OpCode(b[1]), b[2], b[3]
	h.Tag = binary.LittleEndian.Uint32(b[4:])
	h.Disp = binary.LittleEndian.Uint64(b[8:])
	h.Count = binary.LittleEndian.Uint64(b[16:])
	if h.Kind == 0 || h.Kind >= kindEnd || h.Op >= opEnd {
		return nil, ErrHeader
	}
	return b[HeaderSize:], nil
}
