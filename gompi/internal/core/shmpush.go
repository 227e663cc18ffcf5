package core

import "unsafe"

// ShmPushLines returns the push lines of c's slot (shm.CollPush): rank r's
// line of parity p at (2r+p)·shm.PushLineSize; nil if c has no slot. The
// words of a line are set and awaited with ShmSetWord and ShmAwaitWord.
func (c *Comm) ShmPushLines() []byte {
	if c.slot < 0 {
		return nil
	}
	return c.p.seg.CollPush(c.slot)
}

// ShmWakeWord wakes the ranks asleep on the word at w (ShmAwaitWord), if
// any: for a word stored with shm.StoreRelease32 (which ShmSetWord's
// atomic store would otherwise do), after a fence that follows the store.
func (c *Comm) ShmWakeWord(w unsafe.Pointer) {
	c.p.seg.CollCtlAt(c.slot).WakeWord((*uint32)(w))
}
