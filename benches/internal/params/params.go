// Package params parses the benchmark parameters that suites share: byte
// sizes with binary suffixes (4K = 4096) and lists and doubling ranges of
// them, each also as a pflag.Value.
package params

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

var suffixes = []struct {
	s string
	m int64
}{{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}}

// ParseSize parses a byte count: a non-negative integer with an optional
// binary suffix K, M, G or T (powers of 1024, either case, optionally
// followed by "B" or "iB"): "512", "4K", "1MiB", "2g".
func ParseSize(s string) (int64, error) {
	in := s
	s = strings.ToUpper(strings.TrimSpace(s))
	s = strings.TrimSuffix(strings.TrimSuffix(s, "B"), "I")
	mult := int64(1)
	for _, x := range suffixes {
		if rest, ok := strings.CutSuffix(s, x.s); ok {
			s, mult = rest, x.m
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad size %q: want a number with an optional K, M, G or T suffix", in)
	}
	if n > math.MaxInt64/mult {
		return 0, fmt.Errorf("bad size %q: too large", in)
	}
	return n * mult, nil
}

// FormatSize writes n with the largest suffix that divides it exactly:
// 4096 → "4K", 1536 → "1536", 3<<20 → "3M".
func FormatSize(n int64) string {
	for _, x := range suffixes {
		if n != 0 && n%x.m == 0 {
			return strconv.FormatInt(n/x.m, 10) + x.s
		}
	}
	return strconv.FormatInt(n, 10)
}

// Size is a byte count usable as a pflag.Value.
type Size int64

func (s Size) String() string { return FormatSize(int64(s)) }

// Set parses a size with ParseSize.
func (s *Size) Set(v string) error {
	n, err := ParseSize(v)
	if err != nil {
		return err
	}
	*s = Size(n)
	return nil
}

// Type names the value in pflag's help.
func (*Size) Type() string { return "size" }

// MaxListLen bounds how many sizes a range may expand to.
const MaxListLen = 4096

// ParseSizes parses a comma-separated list of sizes and ranges. A range
// LO..HI doubles from LO up to HI inclusive; LO..HI:xF multiplies by F
// instead, LO..HI:+S adds S: "0,1..1M", "4K..64K:x4", "1K..8K:+1K".
func ParseSizes(s string) ([]int64, error) {
	var out []int64
	for part := range strings.SplitSeq(s, ",") {
		lo, rest, isRange := strings.Cut(part, "..")
		a, err := ParseSize(lo)
		if err != nil {
			return nil, err
		}
		if !isRange {
			out = append(out, a)
			continue
		}
		hiStr, step, hasStep := strings.Cut(rest, ":")
		b, err := ParseSize(hiStr)
		if err != nil {
			return nil, err
		}
		// next returns the value after v, or -1 past b (checked before
		// the arithmetic, so nothing overflows).
		times := func(f int64) func(int64) int64 {
			return func(v int64) int64 {
				if v > b/f {
					return -1
				}
				return v * f
			}
		}
		next := times(2)
		if hasStep {
			switch {
			case strings.HasPrefix(step, "x"):
				f, err := strconv.ParseInt(step[1:], 10, 64)
				if err != nil || f < 2 {
					return nil, fmt.Errorf("bad range step %q: want xF with F >= 2", step)
				}
				next = times(f)
			case strings.HasPrefix(step, "+"):
				d, err := ParseSize(step[1:])
				if err != nil || d < 1 {
					return nil, fmt.Errorf("bad range step %q: want +SIZE with SIZE >= 1", step)
				}
				next = func(v int64) int64 {
					if v > b-d {
						return -1
					}
					return v + d
				}
			default:
				return nil, fmt.Errorf("bad range step %q: want xF or +SIZE", step)
			}
		}
		if b < a || (a == 0 && !strings.HasPrefix(step, "+")) {
			return nil, fmt.Errorf("bad range %q: want 0 < LO <= HI (LO may be 0 with a +SIZE step)", part)
		}
		for v := a; v >= 0; v = next(v) {
			if len(out) >= MaxListLen {
				return nil, fmt.Errorf("size list %q has more than %d entries", s, MaxListLen)
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// Sizes is a list of sizes usable as a pflag.Value (see ParseSizes).
type Sizes []int64

func (s Sizes) String() string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = FormatSize(v)
	}
	return strings.Join(parts, ",")
}

// Set replaces the list with ParseSizes(v).
func (s *Sizes) Set(v string) error {
	l, err := ParseSizes(v)
	if err != nil {
		return err
	}
	*s = l
	return nil
}

// Type names the value in pflag's help.
func (*Sizes) Type() string { return "sizes" }
