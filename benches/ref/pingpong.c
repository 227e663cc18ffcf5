/*
 * pingpong.c: the reference ping-pong for side-by-side runs with
 * examples/pingpong. Same method: per size, calibrate the iteration count
 * to about --time seconds, one warm-up round trip, --reps measurements,
 * report the median one-way latency (half the mean round trip) and
 * size / latency as bandwidth. Same output formats (text, or JSON lines
 * with size, latency_us, bandwidth_MBps).
 *
 *   mpicc -O2 -o pingpong pingpong.c
 *   mpirun -n 2 ./pingpong [--format json] [--min 0] [--max 4M] [--reps 5] [--time 0.05]
 *                          [--thread multiple]
 *
 * --thread multiple initializes with MPI_Init_thread(MPI_THREAD_MULTIPLE),
 * the level gompi asks for, where the library may take locks it otherwise
 * skips: compare gompi over MPI with this to see the cost of gompi alone.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank;

static void exchange(char *buf, int size, int iters) {
    int peer = 1 - rank;
    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            MPI_Send(buf, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
        }
    }
}

static double measure(char *buf, int size, int iters) {
    exchange(buf, size, 1);
    double t = MPI_Wtime();
    exchange(buf, size, iters);
    return (MPI_Wtime() - t) / iters;
}

static int calibrate(char *buf, int size, double budget) {
    long n = 0;
    if (rank == 0) {
        double rt = measure(buf, size, 10);
        double k = budget / rt;
        if (k < 10) k = 10;
        if (k > 1e6) k = 1e6;
        n = (long)k;
        MPI_Send(&n, 1, MPI_LONG, 1, 2, MPI_COMM_WORLD);
    } else {
        measure(buf, size, 10);
        MPI_Recv(&n, 1, MPI_LONG, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return (int)n;
}

static long parse_size(const char *s) {
    char *end;
    long v = strtol(s, &end, 10);
    if (*end == 'K') v <<= 10;
    else if (*end == 'M') v <<= 20;
    return v;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    long lo = 0, hi = 4 << 20;
    int reps = 5, json = 0;
    double budget = 0.05;
    int multiple = 0, provided;
    for (int i = 1; i + 1 < argc; i++) multiple |= !strcmp(argv[i], "--thread") && !strcmp(argv[i + 1], "multiple");
    if (multiple) MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else MPI_Init(&argc, &argv);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--format")) json = !strcmp(argv[i + 1], "json");
        else if (!strcmp(argv[i], "--min")) lo = parse_size(argv[i + 1]);
        else if (!strcmp(argv[i], "--max")) hi = parse_size(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--time")) budget = atof(argv[i + 1]);
    }
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "pingpong: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank > 1) { MPI_Finalize(); return 0; }
    char *buf = calloc(hi > 0 ? hi : 1, 1);
    double *lat = calloc(reps, sizeof(double));
    if (rank == 0 && !json) printf("%12s %14s %16s %10s\n", "size(B)", "latency(us)", "bandwidth(MB/s)", "iters");
    for (long s = lo; s <= hi; s = (s == 0 ? 1 : s * 2)) {
        int iters = calibrate(buf, (int)s, budget);
        for (int r = 0; r < reps; r++) lat[r] = measure(buf, (int)s, iters) / 2;
        if (rank != 0) continue;
        qsort(lat, reps, sizeof(double), cmp);
        double l = lat[reps / 2], bw = s > 0 ? s / l / 1e6 : 0;
        if (json)
            printf("{\"bandwidth_MBps\":%.3f,\"iterations\":%d,\"latency_max_us\":%.4f,\"latency_min_us\":%.4f,"
                   "\"latency_us\":%.4f,\"reps\":%d,\"size\":%ld}\n",
                   bw, iters, lat[reps - 1] * 1e6, lat[0] * 1e6, l * 1e6, reps, s);
        else
            printf("%12ld %14.3f %16.1f %10d\n", s, l * 1e6, bw, iters);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
