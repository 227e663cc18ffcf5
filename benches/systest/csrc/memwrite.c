// The C references of the system test "memory write", compiled -O2 by
// `benches systest` in the same run: a loop of 8-byte stores over a block,
// unrolled by eight as the Go loop is (store; the compiler may vectorise it),
// and the C library's memset (memset), the counterpart of Go's clear().
//
//   memwrite store|memset BYTES REPS SAMPLES [LIMIT]
//
// One sample writes the block REPS times; it prints SAMPLES lines, seconds
// per write of the block each, or fewer when LIMIT seconds (> 0) have
// passed: it stops after the first sample that ends past it.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// store is the Go loop's twin: 8-byte stores, unrolled by eight.
static void store(uint64_t *p, size_t n, uint64_t v) {
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		p[i] = v, p[i + 1] = v, p[i + 2] = v, p[i + 3] = v;
		p[i + 4] = v, p[i + 5] = v, p[i + 6] = v, p[i + 7] = v;
	}
	for (; i < n; i++) p[i] = v;
}

int main(int argc, char **argv) {
	if (argc < 5 || argc > 6 || (strcmp(argv[1], "store") && strcmp(argv[1], "memset"))) {
		fprintf(stderr, "usage: memwrite store|memset BYTES REPS SAMPLES [LIMIT]\n");
		return 2;
	}
	int use_memset = !strcmp(argv[1], "memset");
	size_t bytes = strtoull(argv[2], 0, 10);
	long reps = atol(argv[3]), samples = atol(argv[4]);
	double limit = argc > 5 ? atof(argv[5]) : 0, start;
	size_t n = bytes / 8;
	uint64_t *p = aligned_alloc(4096, (n * 8 + 4095) / 4096 * 4096);
	if (!p || n == 0 || reps < 1 || samples < 1) {
		fprintf(stderr, "memwrite: bad arguments or no memory\n");
		return 2;
	}
	store(p, n, 1); // first touch, outside the timing
	start = now();
	for (long s = 0; s < samples; s++) {
		double t0 = now();
		for (long r = 0; r < reps; r++) {
			if (use_memset)
				memset(p, (int)(s * reps + r), n * 8);
			else
				store(p, n, (uint64_t)(s * reps + r));
			__asm__ volatile("" : : "r"(p) : "memory"); // keep every pass
		}
		printf("%.9e\n", (now() - t0) / reps);
		if (limit > 0 && now() - start > limit) break;
	}
	free(p);
	return 0;
}
