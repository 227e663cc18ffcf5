// The C pthread reference of the system test "threads under load": the same
// operations as the Go rows, timed the same way, built by `benches systest`
// with the system C compiler in the same run.
//
//   threads OP BATCH SAMPLES CPU [N [LIMIT]]
//
// OP is create, create-join, chain, mutex-create, mutex-destroy, mutex-lock,
// mutex-unlock or wake; BATCH operations make one sample (chain: N threads;
// wake: N waiters woken per sample); CPU >= 0 pins the process's threads to
// that CPU first. It prints SAMPLES lines, seconds per operation each
// (wake: seconds to wake all N waiters), or fewer when LIMIT seconds (> 0)
// have passed: it stops after the first sample that ends past it.
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void die(const char *what, int err) {
	fprintf(stderr, "threads: %s: %s\n", what, strerror(err));
	exit(1);
}

static void *noop(void *arg) { return arg; }

static void *link_chain(void *arg) {
	long k = (long)arg;
	if (k > 1) {
		pthread_t t;
		int err = pthread_create(&t, NULL, link_chain, (void *)(k - 1));
		if (err) die("pthread_create", err);
		pthread_join(t, NULL);
	}
	return NULL;
}

// wake: waiters sleep on a condition until the generation changes, then
// count themselves; the last one tells the main thread.
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go_cond = PTHREAD_COND_INITIALIZER, done_cond = PTHREAD_COND_INITIALIZER;
static long gen, acks, waiting, nwait;

static void *waiter(void *arg) {
	(void)arg;
	pthread_mutex_lock(&mu);
	for (;;) {
		long seen = gen;
		waiting++;
		if (waiting == nwait) pthread_cond_signal(&done_cond);
		while (gen == seen) pthread_cond_wait(&go_cond, &mu);
		if (gen < 0) break;
		if (++acks == nwait) pthread_cond_signal(&done_cond);
	}
	pthread_mutex_unlock(&mu);
	return NULL;
}

int main(int argc, char **argv) {
	if (argc < 5) {
		fprintf(stderr, "usage: threads OP BATCH SAMPLES CPU [N]\n");
		return 2;
	}
	const char *op = argv[1];
	long batch = atol(argv[2]), samples = atol(argv[3]), cpu = atol(argv[4]);
	long n = argc > 5 ? atol(argv[5]) : 0;
	double limit = argc > 6 ? atof(argv[6]) : 0, start;
	if (batch < 1 || samples < 1) {
		fprintf(stderr, "threads: BATCH and SAMPLES must be positive\n");
		return 2;
	}
	if (cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof set, &set)) die("sched_setaffinity", 1);
	}
	pthread_t *ts = calloc(batch > n ? batch : n, sizeof *ts);
	pthread_mutex_t *ms = calloc(batch, sizeof *ms);
	if (!ts || !ms) die("calloc", 12);
	if (!strcmp(op, "wake")) {
		nwait = n;
		for (long i = 0; i < n; i++) {
			int err = pthread_create(&ts[i], NULL, waiter, NULL);
			if (err) die("pthread_create", err);
		}
	}
	start = now();
	for (long s = 0; s < samples; s++) {
		double t0 = 0, t = 0;
		long per = batch;
		if (!strcmp(op, "create")) {
			t0 = now();
			for (long i = 0; i < batch; i++) {
				int err = pthread_create(&ts[i], NULL, noop, NULL);
				if (err) die("pthread_create", err);
			}
			t = now() - t0;
			for (long i = 0; i < batch; i++) pthread_join(ts[i], NULL);
		} else if (!strcmp(op, "create-join")) {
			t0 = now();
			for (long i = 0; i < batch; i++) {
				int err = pthread_create(&ts[i], NULL, noop, NULL);
				if (err) die("pthread_create", err);
				pthread_join(ts[i], NULL);
			}
			t = now() - t0;
		} else if (!strcmp(op, "chain")) {
			t0 = now();
			link_chain((void *)n);
			t = now() - t0;
			per = n - 1;
		} else if (!strcmp(op, "mutex-create")) {
			t0 = now();
			for (long i = 0; i < batch; i++) pthread_mutex_init(&ms[i], NULL);
			t = now() - t0;
			for (long i = 0; i < batch; i++) pthread_mutex_destroy(&ms[i]);
		} else if (!strcmp(op, "mutex-destroy")) {
			for (long i = 0; i < batch; i++) pthread_mutex_init(&ms[i], NULL);
			t0 = now();
			for (long i = 0; i < batch; i++) pthread_mutex_destroy(&ms[i]);
			t = now() - t0;
		} else if (!strcmp(op, "mutex-lock") || !strcmp(op, "mutex-unlock")) {
			int lock = !strcmp(op, "mutex-lock");
			for (long i = 0; i < batch; i++) pthread_mutex_init(&ms[i], NULL);
			if (!lock)
				for (long i = 0; i < batch; i++) pthread_mutex_lock(&ms[i]);
			t0 = now();
			if (lock)
				for (long i = 0; i < batch; i++) pthread_mutex_lock(&ms[i]);
			else
				for (long i = 0; i < batch; i++) pthread_mutex_unlock(&ms[i]);
			t = now() - t0;
			if (lock)
				for (long i = 0; i < batch; i++) pthread_mutex_unlock(&ms[i]);
			for (long i = 0; i < batch; i++) pthread_mutex_destroy(&ms[i]);
		} else if (!strcmp(op, "wake")) {
			pthread_mutex_lock(&mu);
			while (waiting < nwait) pthread_cond_wait(&done_cond, &mu);
			waiting = 0;
			acks = 0;
			t0 = now();
			gen++;
			pthread_cond_broadcast(&go_cond);
			while (acks < nwait) pthread_cond_wait(&done_cond, &mu);
			t = now() - t0;
			pthread_mutex_unlock(&mu);
			per = 1;
		} else {
			fprintf(stderr, "threads: unknown operation %s\n", op);
			return 2;
		}
		printf("%.9e\n", t / per);
		if (limit > 0 && now() - start > limit) break;
	}
	if (!strcmp(op, "wake")) {
		pthread_mutex_lock(&mu);
		gen = -1;
		pthread_cond_broadcast(&go_cond);
		pthread_mutex_unlock(&mu);
		for (long i = 0; i < n; i++) pthread_join(ts[i], NULL);
	}
	return 0;
}
