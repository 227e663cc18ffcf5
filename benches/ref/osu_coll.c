/*
 * osu_coll.c: the reference for `benches osu`. The same method over MPI,
 * which is the method of the OSU Micro-Benchmarks 7.4 collective tests: per
 * size, skip some calls, time each call on its own with MPI_Barrier between
 * calls (back-to-back barriers for the barrier test), and print the mean
 * over ranks of each rank's mean time per call, with the minimum and the
 * maximum. The operations and what a size means are those of benches/osu
 * (osu.Ops): every collective of MPI 2.2.
 *
 *   mpicc -O2 -o osu_coll osu_coll.c
 *   mpirun -n 8 ./osu_coll --op bcast --sizes 8,1024,65536,1048576 [--format json]
 *                          [--thread multiple]
 *
 * --thread multiple initializes with MPI_Init_thread(MPI_THREAD_MULTIPLE), as
 * gompi over MPI does.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int iters = 1000, skip = 200, iters_large = 100, skip_large = 10, large = 8192;

/* Each rank's part of a reduce-scatter of size bytes: size/n rounded down to
 * whole floats, at least one (benches/osu BlockSize). */
static long block_size(long size, int n) {
    long b = size / n & ~3L;
    return b < 4 ? 4 : b;
}

static double run(const char *op, long size, int n, int rank, int it, int sk) {
    long blk = block_size(size, n), big = (size > blk ? size : blk) * n;
    char *a = calloc(big + 1, 1), *b = calloc(big + 1, 1);
    int *counts = malloc(n * sizeof(int)), *displs = malloc(n * sizeof(int)), *bcounts = malloc(n * sizeof(int));
    MPI_Datatype *types = malloc(n * sizeof(MPI_Datatype));
    for (int i = 0; i < n; i++) counts[i] = size, displs[i] = i * size, bcounts[i] = blk / 4, types[i] = MPI_BYTE;
    double total = 0, t;
    if (!strcmp(op, "barrier")) {
        for (int i = 0; i < sk; i++) MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        for (int i = 0; i < it; i++) MPI_Barrier(MPI_COMM_WORLD);
        total = MPI_Wtime() - t;
    } else {
        for (int i = 0; i < sk + it; i++) {
            t = MPI_Wtime();
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
            if (i >= sk) total += MPI_Wtime() - t;
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
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
        else if (!strcmp(argv[i], "--iters-large")) iters_large = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--skip-large")) skip_large = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--large")) large = atoi(argv[i + 1]);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (!strcmp(op, "barrier")) strcpy(sizes, "0");
    if (rank == 0 && !json) printf("%-10s %4s %9s %10s %10s %10s %6s\n", "op", "n", "size", "avg_us", "min_us", "max_us", "iters");
    for (char *s = strtok(sizes, ","); s; s = strtok(NULL, ",")) {
        long size = atol(s);
        int it = size > large ? iters_large : iters, sk = size > large ? skip_large : skip;
        double mine = run(op, size, n, rank, it, sk), lo, hi, sum;
        MPI_Reduce(&mine, &lo, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
        MPI_Reduce(&mine, &hi, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            if (json) printf("{\"op\":\"%s\",\"n\":%d,\"size\":%ld,\"avg_us\":%.3f,\"min_us\":%.3f,\"max_us\":%.3f,\"iters\":%d}\n",
                             op, n, size, sum / n, lo, hi, it);
            else printf("%-10s %4d %9ld %10.2f %10.2f %10.2f %6d\n", op, n, size, sum / n, lo, hi, it);
            fflush(stdout);
        }
    }
    MPI_Finalize();
    return 0;
}
