package msu

import (
	"fmt"

	"github.com/gompi/gompi/benches/internal/params"
)

// Sizes lists the message sizes from lo to hi inclusive: an arithmetic
// progression when step > 0 (the original's s), otherwise a geometric one
// with factor (K; 2 in nettest). A geometric progression from 0 measures 0
// (the latency) and goes on from 1.
func Sizes(lo, hi, step, factor int64) ([]int64, error) {
	if lo > hi {
		return nil, Usagef("the first size m%d is larger than the last M%d", lo, hi)
	}
	var spec string
	switch {
	case step > 0:
		spec = fmt.Sprintf("%d..%d:+%d", lo, hi, step)
	case factor < 2:
		return nil, Usagef("the size factor K%d must be 2 or more", factor)
	case lo > 0:
		spec = fmt.Sprintf("%d..%d:x%d", lo, hi, factor)
	case hi == 0:
		spec = "0"
	default:
		spec = fmt.Sprintf("0,1..%d:x%d", hi, factor)
	}
	s, err := params.ParseSizes(spec)
	if err != nil {
		return nil, Usagef("sizes m%d..M%d: %v", lo, hi, err)
	}
	return s, nil
}
