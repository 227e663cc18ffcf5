package osu

import "testing"

func TestBlockSize(t *testing.T) {
	for _, tt := range []struct{ size, n, want int }{
		{8, 2, 4},      // one float each
		{8, 8, 4},      // at least one float
		{1024, 8, 128}, // an even split
		{1000, 3, 332}, // rounded down to whole floats
		{1 << 20, 8, 131072},
	} {
		if got := BlockSize(tt.size, tt.n); got != tt.want {
			t.Errorf("BlockSize(%d, %d) = %d, want %d", tt.size, tt.n, got, tt.want)
		}
	}
}

func TestUniform(t *testing.T) {
	counts, displs := uniform(3, 5)
	for i := range 3 {
		if counts[i] != 5 || displs[i] != 5*i {
			t.Fatalf("uniform(3, 5) = %v, %v", counts, displs)
		}
	}
}
