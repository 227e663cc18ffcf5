package gompi

import (
	"errors"
	"testing"
)

// TestRemoteBufRead: a published record reads back as the buffer it
// describes; ranges outside it are refused without reading.
func TestRemoteBufRead(t *testing.T) {
	src := []byte("single copy from a peer's buffer")
	rec := make([]byte, cmaRecSize)
	publishBuf(rec, src)
	b := peerBuf(rec)
	if b.pid != selfPID || b.len != len(src) {
		t.Fatalf("record reads back as pid %d, %d bytes; want %d, %d", b.pid, b.len, selfPID, len(src))
	}
	dst := make([]byte, 4)
	if err := b.read(dst, 7); err != nil {
		if errors.Is(err, errCMARange) {
			t.Fatal(err)
		}
		t.Skipf("process_vm_readv refused here: %v", err)
	}
	if string(dst) != "copy" {
		t.Fatalf("read %q, want %q", dst, "copy")
	}
	for _, off := range []int{-1, len(src) - 3, len(src)} {
		if err := b.read(dst, off); !errors.Is(err, errCMARange) {
			t.Errorf("read of 4 bytes at %d of %d: %v, want errCMARange", off, len(src), err)
		}
	}
	if err := b.read(nil, len(src)+5); err != nil {
		t.Errorf("an empty read needs nothing: %v", err)
	}
}
