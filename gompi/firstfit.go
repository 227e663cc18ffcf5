package gompi

import "sort"

// span is a region [start, end) of a buffer.
type span struct{ start, end int }

// firstFit places regions in a buffer of a given size, first fit: it keeps
// the regions in use, sorted by start, and a new one goes in the first gap
// that holds it. The buffered sends' buffer and the windows' arenas use it.
type firstFit struct {
	used []span
}

// alloc places need bytes in a buffer of size bytes.
func (f *firstFit) alloc(need, size int) (span, bool) {
	at := 0
	for _, u := range f.used {
		if u.start-at >= need {
			break
		}
		at = u.end
	}
	if at+need > size {
		return span{}, false
	}
	s := span{at, at + need}
	i := sort.Search(len(f.used), func(i int) bool { return f.used[i].start >= s.start })
	f.used = append(f.used, span{})
	copy(f.used[i+1:], f.used[i:])
	f.used[i] = s
	return s, true
}

// release frees s, as alloc returned it.
func (f *firstFit) release(s span) {
	for i, u := range f.used {
		if u == s {
			f.used = append(f.used[:i], f.used[i+1:]...)
			return
		}
	}
}
