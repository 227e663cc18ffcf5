package params

import (
	"slices"
	"testing"
)

func TestParseSize(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		bad  bool
	}{
		{in: "0", want: 0}, {in: "512", want: 512}, {in: "4K", want: 4096}, {in: "4k", want: 4096},
		{in: "1M", want: 1 << 20}, {in: "1MiB", want: 1 << 20}, {in: "2GB", want: 2 << 30},
		{in: "3T", want: 3 << 40}, {in: " 8K ", want: 8192}, {in: "7B", want: 7},
		{in: "", bad: true}, {in: "K", bad: true}, {in: "-1", bad: true}, {in: "1.5K", bad: true},
		{in: "4X", bad: true}, {in: "9999999999T", bad: true},
	}
	for _, c := range cases {
		got, err := ParseSize(c.in)
		if c.bad != (err != nil) || (!c.bad && got != c.want) {
			t.Errorf("ParseSize(%q) = %d, %v; want %d (error %v)", c.in, got, err, c.want, c.bad)
		}
	}
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "0"}, {1, "1"}, {1536, "1536"}, {4096, "4K"}, {3 << 20, "3M"}, {1 << 30, "1G"}, {5 << 40, "5T"}} {
		if got := FormatSize(c.n); got != c.want {
			t.Errorf("FormatSize(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestParseSizes(t *testing.T) {
	cases := []struct {
		in   string
		want []int64
		bad  bool
	}{
		{in: "1,4K", want: []int64{1, 4096}},
		{in: "1..16", want: []int64{1, 2, 4, 8, 16}},
		{in: "0,1K..4K", want: []int64{0, 1024, 2048, 4096}},
		{in: "1..100:x10", want: []int64{1, 10, 100}},
		{in: "0..3K:+1K", want: []int64{0, 1024, 2048, 3072}},
		{in: "3..20", want: []int64{3, 6, 12}},
		{in: "0..8", bad: true}, {in: "8..1", bad: true}, {in: "1..8:x1", bad: true},
		{in: "1..8:y2", bad: true}, {in: "1..8:+0", bad: true}, {in: "1..1T:+1", bad: true},
		{in: "a", bad: true}, {in: "1..b", bad: true},
	}
	for _, c := range cases {
		got, err := ParseSizes(c.in)
		if c.bad != (err != nil) || (!c.bad && !slices.Equal(got, c.want)) {
			t.Errorf("ParseSizes(%q) = %v, %v; want %v (error %v)", c.in, got, err, c.want, c.bad)
		}
	}
}

func TestFlagValues(t *testing.T) {
	var s Size
	if err := s.Set("64K"); err != nil || s != 65536 || s.String() != "64K" || s.Type() != "size" {
		t.Errorf("Size: %v %v", s, err)
	}
	if err := s.Set("x"); err == nil {
		t.Error("Size.Set(x): no error")
	}
	var l Sizes
	if err := l.Set("1K..4K"); err != nil || l.String() != "1K,2K,4K" || l.Type() != "sizes" {
		t.Errorf("Sizes: %v %v", l, err)
	}
	if err := l.Set("1..0"); err == nil {
		t.Error("Sizes.Set(1..0): no error")
	}
}

func FuzzParseSizes(f *testing.F) {
	for _, s := range []string{"1,4K", "1..1M", "0..3K:+1K", "1..100:x10", "9T..9T"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseSizes(s)
		if err != nil {
			return
		}
		if len(l) > MaxListLen {
			t.Fatalf("%q: %d entries", s, len(l))
		}
		for _, v := range l {
			if v < 0 {
				t.Fatalf("%q: negative size %d", s, v)
			}
			if back, err := ParseSize(FormatSize(v)); err != nil || back != v {
				t.Fatalf("%d → %q → %d, %v", v, FormatSize(v), back, err)
			}
		}
	})
}
