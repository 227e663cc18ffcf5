package hwtopo

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// CPUSet is a set of logical CPU numbers (or NUMA node numbers), kept sorted
// and without duplicates. The zero value is the empty set. Its text form is
// the kernel's list format: "0-3,8-11".
type CPUSet []int

// NewCPUSet returns the set of the given numbers.
func NewCPUSet(cpus ...int) CPUSet {
	s := slices.Clone(cpus)
	slices.Sort(s)
	return slices.Compact(s)
}

// MaxCPU bounds the numbers ParseCPUList accepts (Linux allows at most 8192
// CPUs), so that a corrupt file cannot make it allocate without limit.
const MaxCPU = 1 << 16

// ParseCPUList parses the kernel's list format ("0-3,8,10-11"; empty or
// blank is the empty set).
func ParseCPUList(list string) (CPUSet, error) {
	list = strings.TrimSpace(list)
	if list == "" {
		return nil, nil
	}
	var s CPUSet
	for part := range strings.SplitSeq(list, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 || a > MaxCPU {
			return nil, fmt.Errorf("hwtopo: bad CPU list %q: %q is not a number", list, lo)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a || b > MaxCPU {
				return nil, fmt.Errorf("hwtopo: bad CPU list %q: bad range %q", list, part)
			}
		}
		for c := a; c <= b; c++ {
			s = append(s, c)
		}
	}
	return NewCPUSet(s...), nil
}

// String returns the list format, "" for the empty set.
func (s CPUSet) String() string {
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(s[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(s[j]))
		}
		i = j + 1
	}
	return b.String()
}

// Contains reports whether cpu is in s.
func (s CPUSet) Contains(cpu int) bool {
	_, ok := slices.BinarySearch(s, cpu)
	return ok
}

// Equal reports whether s and o hold the same CPUs.
func (s CPUSet) Equal(o CPUSet) bool { return slices.Equal(s, o) }

// SubsetOf reports whether every CPU of s is in o.
func (s CPUSet) SubsetOf(o CPUSet) bool {
	for _, c := range s {
		if !o.Contains(c) {
			return false
		}
	}
	return true
}

// Intersect returns the CPUs in both s and o.
func (s CPUSet) Intersect(o CPUSet) CPUSet {
	var r CPUSet
	for _, c := range s {
		if o.Contains(c) {
			r = append(r, c)
		}
	}
	return r
}

// Union returns the CPUs in s or o.
func (s CPUSet) Union(o CPUSet) CPUSet { return NewCPUSet(append(slices.Clone(s), o...)...) }
