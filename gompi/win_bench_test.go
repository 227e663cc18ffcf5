//go:build !mpi && !mpich

package gompi_test

import (
	"testing"

	"github.com/gompi/gompi/gompi"
)

// benchRMA times op (one operation and its flush) on rank 0 against rank 1's
// part of an allocated window of int64 (in-process ranks: the direct path).
func benchRMA(b *testing.B, op func(w *gompi.Win[int64], buf []int64) error) {
	benchRMAOf(b, 1, op)
}

// benchRMAOf is benchRMA on a window of T, with a buffer of n elements.
func benchRMAOf[T any](b *testing.B, n int, op func(w *gompi.Win[T], buf []T) error) {
	err := gompi.Run(2, func(c *gompi.Comm) error {
		w, err := gompi.WinAllocate[T](c, 64)
		if err != nil {
			return err
		}
		if c.Rank() == 0 {
			if err := w.Lock(gompi.LockShared, 1); err != nil {
				return err
			}
			buf := make([]T, n)
			b.ResetTimer()
			for range b.N {
				if err := op(w, buf); err != nil {
					return err
				}
			}
			b.StopTimer()
			if err := w.Unlock(1); err != nil {
				return err
			}
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		return w.Free()
	})
	if err != nil {
		b.Fatal(err)
	}
}

func BenchmarkRMAPutFlush(b *testing.B) {
	benchRMA(b, func(w *gompi.Win[int64], buf []int64) error {
		if err := w.Put(buf, 1, 0); err != nil {
			return err
		}
		return w.Flush(1)
	})
}

// BenchmarkRMAPut8BytesFlush is the OSU put_latency point at 8 B: a window
// of bytes, 8 of them per Put.
func BenchmarkRMAPut8BytesFlush(b *testing.B) {
	benchRMAOf(b, 8, func(w *gompi.Win[byte], buf []byte) error {
		if err := w.Put(buf, 1, 0); err != nil {
			return err
		}
		return w.Flush(1)
	})
}

func BenchmarkRMAGet8BytesFlush(b *testing.B) {
	benchRMAOf(b, 8, func(w *gompi.Win[byte], buf []byte) error {
		if err := w.Get(buf, 1, 0); err != nil {
			return err
		}
		return w.Flush(1)
	})
}

// BenchmarkRMAPut64BytesFlush goes through copy (no fixed-size move).
func BenchmarkRMAPut64BytesFlush(b *testing.B) {
	benchRMAOf(b, 64, func(w *gompi.Win[byte], buf []byte) error {
		if err := w.Put(buf, 1, 0); err != nil {
			return err
		}
		return w.Flush(1)
	})
}

func BenchmarkRMAFetchAndOpFlush(b *testing.B) {
	sum := gompi.Sum[int64]()
	benchRMA(b, func(w *gompi.Win[int64], buf []int64) error {
		if err := w.FetchAndOp(1, &buf[0], 1, 0, sum); err != nil {
			return err
		}
		return w.Flush(1)
	})
}

func BenchmarkRMACompareAndSwapFlush(b *testing.B) {
	benchRMA(b, func(w *gompi.Win[int64], buf []int64) error {
		if err := w.CompareAndSwap(1, 0, &buf[0], 1, 0); err != nil {
			return err
		}
		return w.Flush(1)
	})
}

// BenchmarkRMAAccumulate8BytesFlush is the OSU acc_latency point at 8 B:
// Sum of two int32.
func BenchmarkRMAAccumulate8BytesFlush(b *testing.B) {
	sum := gompi.Sum[int32]()
	benchRMAOf(b, 2, func(w *gompi.Win[int32], buf []int32) error {
		if err := w.Accumulate(buf, 1, 0, sum); err != nil {
			return err
		}
		return w.Flush(1)
	})
}

func BenchmarkRMAGetAccumulate8BytesFlush(b *testing.B) {
	sum := gompi.Sum[int32]()
	res := make([]int32, 2)
	benchRMAOf(b, 2, func(w *gompi.Win[int32], buf []int32) error {
		if err := w.GetAccumulate(buf, res, 1, 0, sum); err != nil {
			return err
		}
		return w.Flush(1)
	})
}

// BenchmarkRMAWinAllocateFree times making and freeing a window of 4 KiB
// per rank on 4 in-process ranks (the direct path: after the first, each
// takes a chunk of its rank's arena and one exchange).
func BenchmarkRMAWinAllocateFree(b *testing.B) {
	err := gompi.Run(4, func(c *gompi.Comm) error {
		if c.Rank() == 0 {
			b.ResetTimer()
		}
		for range b.N {
			w, err := gompi.WinAllocate[byte](c, 4096)
			if err != nil {
				return err
			}
			if err := w.Free(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}
