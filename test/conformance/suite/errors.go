package suite

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gompi/gompi/gompi"
)

// The error model: errors.Is finds the class, errors.As the details, and a
// message says each thing once.
var errorCases = []Case{
	{"ErrorsCarryDetail", []int{2, 3}, errorsCarryDetail},
}

func errorsCarryDetail(c *gompi.Comm) error {
	me, last := c.Rank(), c.Size()-1
	// Truncation: the sizes of the message and of the buffer.
	switch me {
	case 0:
		if err := c.Send(make([]byte, 100), last, 1); err != nil {
			return err
		}
	case last:
		_, err := c.Recv(make([]byte, 10), gompi.AnySource, 1)
		var e *gompi.Error
		if !errors.Is(err, gompi.ErrTruncate) || !errors.As(err, &e) {
			return fmt.Errorf("truncated receive: %v", err)
		}
		if e.MessageBytes != 100 || e.BufferBytes != 10 || e.Peer != 0 || e.Tag != 1 || e.Rank != me {
			return fmt.Errorf("truncated receive: %+v, want 100 bytes into 10 from rank 0 tag 1 on rank %d", *e, me)
		}
	}
	// An invalid root: one prefix, one class.
	err := c.Bcast(make([]byte, 4), c.Size()+3)
	if !errors.Is(err, gompi.ErrArg) {
		return fmt.Errorf("root out of range: %v", err)
	}
	msg := err.Error()
	if strings.Count(msg, "gompi:")+strings.Count(msg, "coll:") != 1 || strings.Count(msg, gompi.ErrArg.Error()) != 1 {
		return fmt.Errorf("root out of range: the message repeats itself: %q", msg)
	}
	// A bad argument on this rank alone, before any message: the class,
	// and the rank that saw it.
	var e *gompi.Error
	err = c.Allreduce(make([]byte, 12), make([]byte, 12), gompi.Sum[float64]())
	if !errors.As(err, &e) || !errors.Is(err, gompi.ErrArg) || e.Rank != me || e.Op != "Allreduce" {
		return fmt.Errorf("12 bytes of float64: %v", err)
	}
	return c.Barrier()
}
