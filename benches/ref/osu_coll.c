/*
 * osu_coll.c: the reference for `benches osu`. The same method over MPI,
 * which is the method of the OSU Micro-Benchmarks 7.4 collective tests: per
 * size, skip some calls, time each call on its own with MPI_Barrier between
 * calls (back-to-back barriers for the barrier test), and print the mean
 * over ranks of each rank's mean time per call, with the minimum and the
 * maximum, and rank 0's wall time per iteration of the whole timed loop,
 * the barrier between calls included (loop_us, last). The operations and what a size means are those of benches/osu
 * (osu.Ops): every collective of MPI 2.2.
 *
 *   mpicc -O2 -o osu_coll osu_coll.c
 *   mpirun -n 8 ./osu_coll --op bcast --sizes 8,1024,65536,1048576 [--format json]
 *                          [--thread multiple]
 *
 * --thread multiple initializes with MPI_Init_thread(MPI_THREAD_MULTIPLE), as
 * gompi over MPI does.
 *
 * --dist PREFIX also writes each rank's distribution of its timed calls per
 * size as JSON lines into PREFIX.RANK.jsonl, the fields of benches osu --dist
 * (benches/osu/dist.go): quantiles, calls over 5 and 20 us, and the calls
 * slower than --dist-slow US (default 5) with their start on CLOCK_MONOTONIC.
 * The barrier test then times each call on its own.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>

static int iters = 1000, skip = 200, iters_large = 100, skip_large = 10, large = 8192;
static double warmup_ms; /* --warmup-ms: untimed calls for this long before the first size */

/* --dist: the timed calls of the current size (start, us). */
static FILE *dist_file;
static double dist_slow = 5, dist_offset, *dist_start, *dist_us;
static int dist_len;

static void dist_add(double start, double us) {
    if (dist_file) dist_start[dist_len] = start, dist_us[dist_len++] = us;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double quantile(const double *sorted, int n, double q) {
    long i = (long)(q * n);
    if (i < q * n) i++; /* the ceiling, without libm */
    i--;
    if (i < 0) i = 0;
    if (i > n - 1) i = n - 1;
    return n ? sorted[i] : 0;
}

/* The process's threads' counters (benches/osu/threads.go): run and
 * runnable-wait time from /proc/self/task/T/schedstat, context switches from
 * status. */
#define MAX_THREADS 64
struct thread_stat { long tid; char comm[32]; double run_us, wait_us; long slices, vcsw, ivcsw; };
static struct thread_stat snap_before[MAX_THREADS];
static int snap_before_n;

static int snap_threads(struct thread_stat *out) {
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    if (!d) return 0;
    for (struct dirent *e; (e = readdir(d)) && n < MAX_THREADS;) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        struct thread_stat *t = &out[n];
        memset(t, 0, sizeof *t);
        t->tid = atol(e->d_name);
        char path[320], line[256];
        snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", e->d_name);
        FILE *f = fopen(path, "r");
        if (f) {
            long long run = 0, wait = 0;
            if (fscanf(f, "%lld %lld %ld", &run, &wait, &t->slices) == 3) t->run_us = run / 1e3, t->wait_us = wait / 1e3;
            fclose(f);
        }
        snprintf(path, sizeof path, "/proc/self/task/%s/status", e->d_name);
        if ((f = fopen(path, "r"))) {
            while (fgets(line, sizeof line, f)) {
                sscanf(line, "voluntary_ctxt_switches: %ld", &t->vcsw);
                sscanf(line, "nonvoluntary_ctxt_switches: %ld", &t->ivcsw);
            }
            fclose(f);
        }
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        if ((f = fopen(path, "r"))) {
            if (fgets(t->comm, sizeof t->comm, f)) t->comm[strcspn(t->comm, "\n\"\\")] = 0;
            fclose(f);
        }
        n++;
    }
    closedir(d);
    return n;
}

/* dist_write writes the line of benches/osu's Dist for this size. */
static void dist_write(const char *op, int n, long size, int rank) {
    if (!dist_file || !dist_len) return;
    double *sorted = malloc(dist_len * sizeof(double)), sum = 0, excess = 0;
    memcpy(sorted, dist_us, dist_len * sizeof(double));
    qsort(sorted, dist_len, sizeof(double), cmp_double);
    for (int i = 0; i < dist_len; i++) sum += sorted[i];
    double p50 = quantile(sorted, dist_len, 0.5);
    int over5 = 0, over20 = 0;
    for (int i = 0; i < dist_len; i++) {
        if (dist_us[i] > 5) over5++, excess += dist_us[i] - p50;
        if (dist_us[i] > 20) over20++;
    }
    fprintf(dist_file, "{\"op\":\"%s\",\"n\":%d,\"size\":%ld,\"rank\":%d,\"iters\":%d,\"mean_us\":%.4f,\"p50_us\":%.4f,\"p90_us\":%.4f,"
            "\"p99_us\":%.4f,\"p999_us\":%.4f,\"max_us\":%.4f,\"over5\":%d,\"over20\":%d,\"excess_us\":%.4f,\"slow\":[",
            op, n, size, rank, dist_len, sum / dist_len, p50, quantile(sorted, dist_len, 0.9), quantile(sorted, dist_len, 0.99),
            quantile(sorted, dist_len, 0.999), sorted[dist_len - 1], over5, over20, excess / dist_len);
    int listed = 0;
    for (int i = 0; i < dist_len && listed < 2000; i++)
        if (dist_us[i] > dist_slow) fprintf(dist_file, "%s[%.9f,%.4f]", listed++ ? "," : "", dist_start[i] + dist_offset, dist_us[i]);
    fprintf(dist_file, "]");
    struct thread_stat now[MAX_THREADS];
    int nn = snap_threads(now), listed_threads = 0;
    for (int i = 0; i < nn; i++) {
        struct thread_stat b = {0};
        for (int j = 0; j < snap_before_n; j++)
            if (snap_before[j].tid == now[i].tid) b = snap_before[j];
        struct thread_stat *a = &now[i];
        if (a->slices == b.slices && a->vcsw == b.vcsw && a->ivcsw == b.ivcsw) continue;
        fprintf(dist_file, "%s{\"tid\":%ld,\"comm\":\"%s\",\"run_us\":%.1f,\"wait_us\":%.1f,\"slices\":%ld,\"vcsw\":%ld,\"ivcsw\":%ld}",
                listed_threads++ ? "," : ",\"threads\":[", a->tid, a->comm, a->run_us - b.run_us, a->wait_us - b.wait_us,
                a->slices - b.slices, a->vcsw - b.vcsw, a->ivcsw - b.ivcsw);
    }
    fprintf(dist_file, "%s}\n", listed_threads ? "]" : "");
    free(sorted);
    dist_len = 0;
}

/* Each rank's part of a reduce-scatter of size bytes: size/n rounded down to
 * whole floats, at least one (benches/osu BlockSize). */
static long block_size(long size, int n) {
    long b = size / n & ~3L;
    return b < 4 ? 4 : b;
}

/* call makes one call of op on size bytes (see run for the buffers). */
static void call(const char *op, long size, int n, int rank, long blk, char *a, char *b, int *counts, int *displs, int *bcounts, MPI_Datatype *types) {
    if (!strcmp(op, "bcast")) MPI_Bcast(a, size, MPI_BYTE, 0, MPI_COMM_WORLD);
    else if (!strcmp(op, "allreduce")) MPI_Allreduce(a, b, size / 4, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    else if (!strcmp(op, "reduce")) MPI_Reduce(a, b, size / 4, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
    else if (!strcmp(op, "allgather")) MPI_Allgather(a, size, MPI_BYTE, b, size, MPI_BYTE, MPI_COMM_WORLD);
    else if (!strcmp(op, "alltoall")) MPI_Alltoall(a, size, MPI_BYTE, b, size, MPI_BYTE, MPI_COMM_WORLD);
    else if (!strcmp(op, "gather")) MPI_Gather(a, size, MPI_BYTE, b, size, MPI_BYTE, 0, MPI_COMM_WORLD);
    else if (!strcmp(op, "scatter")) MPI_Scatter(a, size, MPI_BYTE, b, size, MPI_BYTE, 0, MPI_COMM_WORLD);
    else if (!strcmp(op, "gatherv")) MPI_Gatherv(a, size, MPI_BYTE, b, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
    else if (!strcmp(op, "scatterv")) MPI_Scatterv(a, counts, displs, MPI_BYTE, b, size, MPI_BYTE, 0, MPI_COMM_WORLD);
    else if (!strcmp(op, "allgatherv")) MPI_Allgatherv(a, size, MPI_BYTE, b, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
    else if (!strcmp(op, "alltoallv")) MPI_Alltoallv(a, counts, displs, MPI_BYTE, b, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
    else if (!strcmp(op, "alltoallw")) MPI_Alltoallw(a, counts, displs, types, b, counts, displs, types, MPI_COMM_WORLD);
    else if (!strcmp(op, "reduce_scatter")) MPI_Reduce_scatter(a, b, bcounts, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    else if (!strcmp(op, "reduce_scatter_block")) MPI_Reduce_scatter_block(a, b, blk / 4, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    else if (!strcmp(op, "scan")) MPI_Scan(a, b, size / 4, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    else if (!strcmp(op, "exscan")) MPI_Exscan(a, b, size / 4, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    else { if (rank == 0) fprintf(stderr, "osu_coll: unknown --op %s\n", op); MPI_Abort(MPI_COMM_WORLD, 2); }
}

/* warm_up makes calls of op on size bytes until warmup_ms have passed on
 * rank 0 (all ranks stop together): the same untimed warm-up as the Go
 * program's --warmup-ms, before the first size only. */
static void warm_up(const char *op, long size, int n, int rank, long blk, char *a, char *b, int *counts, int *displs, int *bcounts, MPI_Datatype *types) {
    double t0 = MPI_Wtime();
    for (int more = warmup_ms > 0; more;) {
        for (int i = 0; i < 100; i++) {
            if (!strcmp(op, "barrier")) MPI_Barrier(MPI_COMM_WORLD);
            else {
                call(op, size, n, rank, blk, a, b, counts, displs, bcounts, types);
                MPI_Barrier(MPI_COMM_WORLD);
            }
        }
        more = (MPI_Wtime() - t0) * 1e3 < warmup_ms;
        MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    warmup_ms = 0;
}

/* run returns the rank's mean time per timed call (us) and sets *loop_us to
 * its wall time per timed iteration of the whole loop, the barrier between
 * calls included (benches/osu Point.Loop; rank 0's is reported). */
static double run(const char *op, long size, int n, int rank, int it, int sk, double *loop_us) {
    long blk = block_size(size, n), big = (size > blk ? size : blk) * n;
    char *a = calloc(big + 1, 1), *b = calloc(big + 1, 1);
    int *counts = malloc(n * sizeof(int)), *displs = malloc(n * sizeof(int)), *bcounts = malloc(n * sizeof(int));
    MPI_Datatype *types = malloc(n * sizeof(MPI_Datatype));
    for (int i = 0; i < n; i++) counts[i] = size, displs[i] = i * size, bcounts[i] = blk / 4, types[i] = MPI_BYTE;
    double total = 0, t, start = 0;
    warm_up(op, size, n, rank, blk, a, b, counts, displs, bcounts, types);
    if (!strcmp(op, "barrier")) {
        for (int i = 0; i < sk; i++) MPI_Barrier(MPI_COMM_WORLD);
        if (dist_file) {
            start = MPI_Wtime();
            for (int i = 0; i < it; i++) {
                t = MPI_Wtime();
                MPI_Barrier(MPI_COMM_WORLD);
                double d = MPI_Wtime() - t;
                total += d;
                dist_add(t, d * 1e6);
            }
            *loop_us = (MPI_Wtime() - start) * 1e6 / it;
            goto done;
        }
        t = MPI_Wtime();
        for (int i = 0; i < it; i++) MPI_Barrier(MPI_COMM_WORLD);
        total = MPI_Wtime() - t;
        *loop_us = total * 1e6 / it;
    } else {
        for (int i = 0; i < sk + it; i++) {
            t = MPI_Wtime();
            if (i == sk) start = t;
            call(op, size, n, rank, blk, a, b, counts, displs, bcounts, types);
            if (i >= sk) {
                double d = MPI_Wtime() - t;
                total += d;
                dist_add(t, d * 1e6);
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
        *loop_us = (MPI_Wtime() - start) * 1e6 / it;
    }
done:
    free(a);
    free(b);
    free(counts);
    free(displs);
    free(bcounts);
    free(types);
    return total * 1e6 / it;
}

int main(int argc, char **argv) {
    const char *op = "bcast";
    char sizes[1024] = "8,1024,65536,1048576";
    int json = 0, rank, n;
    int multiple = 0, provided;
    for (int i = 1; i + 1 < argc; i++) multiple |= !strcmp(argv[i], "--thread") && !strcmp(argv[i + 1], "multiple");
    if (multiple) MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else MPI_Init(&argc, &argv);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--op")) op = argv[i + 1];
        else if (!strcmp(argv[i], "--sizes")) snprintf(sizes, sizeof sizes, "%s", argv[i + 1]);
        else if (!strcmp(argv[i], "--format")) json = !strcmp(argv[i + 1], "json");
        else if (!strcmp(argv[i], "--iters")) iters = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--skip")) skip = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--warmup-ms")) warmup_ms = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--iters-large")) iters_large = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--skip-large")) skip_large = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--large")) large = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--dist-slow")) dist_slow = atof(argv[i + 1]);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (!strcmp(op, "barrier")) strcpy(sizes, "0");
    for (int i = 1; i + 1 < argc; i += 2)
        if (!strcmp(argv[i], "--dist")) {
            char path[4096];
            snprintf(path, sizeof path, "%s.%d.jsonl", argv[i + 1], rank);
            if (!(dist_file = fopen(path, "w"))) { perror(path); MPI_Abort(MPI_COMM_WORLD, 2); }
            int most = iters > iters_large ? iters : iters_large;
            dist_start = malloc(most * sizeof(double)), dist_us = malloc(most * sizeof(double));
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            dist_offset = ts.tv_sec + ts.tv_nsec * 1e-9 - MPI_Wtime();
        }
    if (rank == 0 && !json) printf("%-10s %4s %9s %10s %10s %10s %6s %10s\n", "op", "n", "size", "avg_us", "min_us", "max_us", "iters", "loop_us");
    for (char *s = strtok(sizes, ","); s; s = strtok(NULL, ",")) {
        long size = atol(s);
        int it = size > large ? iters_large : iters, sk = size > large ? skip_large : skip;
        if (dist_file) snap_before_n = snap_threads(snap_before);
        double loop = 0, mine = run(op, size, n, rank, it, sk, &loop), lo, hi, sum;
        dist_write(op, n, size, rank);
        MPI_Reduce(&mine, &lo, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
        MPI_Reduce(&mine, &hi, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            if (json) printf("{\"op\":\"%s\",\"n\":%d,\"size\":%ld,\"avg_us\":%.3f,\"min_us\":%.3f,\"max_us\":%.3f,\"iters\":%d,\"loop_us\":%.3f}\n",
                             op, n, size, sum / n, lo, hi, it, loop);
            else printf("%-10s %4d %9ld %10.2f %10.2f %10.2f %6d %10.2f\n", op, n, size, sum / n, lo, hi, it, loop);
            fflush(stdout);
        }
    }
    if (dist_file) fclose(dist_file);
    MPI_Finalize();
    return 0;
}
