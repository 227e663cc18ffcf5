/*
 * osu_nbc.c: the reference for `benches osu --op overlap --coll C`
 * (benches/osu/overlap.go). The same method over MPI, which is the method of
 * the OSU Micro-Benchmarks' nonblocking collective tests (osu_iallreduce and
 * kin) with their default of no MPI_Test during the computation: per size,
 * the bare call + MPI_Wait (t_pure), the computation alone (t_comp), and the
 * call, the computation, MPI_Wait (t_total), each call timed on its own with
 * MPI_Barrier before it; the computation lasts the slowest rank's median
 * bare call of the warm-up calls (max(skip, 3) of them); the three
 * measurements alternate call by call; per rank the medians, then
 *
 *     overlap = 100 * (1 - (t_total - t_comp) / t_pure), clamped to 0..100
 *
 * and the mean over ranks of each figure (as overlap.go; OSU takes means
 * over calls, overlap.go and this program medians).
 *
 *   mpicc -O2 -o osu_nbc osu_nbc.c
 *   mpirun -n 2 ./osu_nbc --coll iallreduce --sizes 8,1024,65536,1048576 [--format json]
 *
 * --coll: iallreduce (size: the float vector), ibcast (the message, root 0),
 * iallgather and ialltoall (one rank's block), ibarrier (no size: 0).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int iters = 1000, skip = 200, iters_large = 100, skip_large = 10, large = 8192;
static const char *coll = "iallreduce";
static char *bufa, *bufb;
static long csize;
static volatile double sink;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* compute keeps the CPU busy for d seconds without calling MPI (the loop of
 * overlap.go's compute). */
static void compute(double d) {
    if (d <= 0) return;
    double end = now() + d, x = 1.0;
    while (now() < end)
        for (int k = 0; k < 200; k++) x = x * 1.0000001 + 1e-9;
    sink = x;
}

static void start(MPI_Request *r) {
    if (!strcmp(coll, "iallreduce")) MPI_Iallreduce(bufa, bufb, csize / 4, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, r);
    else if (!strcmp(coll, "ibcast")) MPI_Ibcast(bufa, csize, MPI_BYTE, 0, MPI_COMM_WORLD, r);
    else if (!strcmp(coll, "iallgather")) MPI_Iallgather(bufa, csize, MPI_BYTE, bufb, csize, MPI_BYTE, MPI_COMM_WORLD, r);
    else if (!strcmp(coll, "ialltoall")) MPI_Ialltoall(bufa, csize, MPI_BYTE, bufb, csize, MPI_BYTE, MPI_COMM_WORLD, r);
    else if (!strcmp(coll, "ibarrier")) MPI_Ibarrier(MPI_COMM_WORLD, r);
    else {
        fprintf(stderr, "osu_nbc: unknown --coll %s\n", coll);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static double transfer(double work) {
    MPI_Request r;
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    start(&r);
    compute(work);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    return MPI_Wtime() - t;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *xs, int n) {
    qsort(xs, n, sizeof *xs, cmp);
    return xs[n / 2];
}

int main(int argc, char **argv) {
    char sizes[1024] = "8,1024,65536,1048576";
    int json = 0, rank, n;
    MPI_Init(&argc, &argv);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--coll")) coll = argv[i + 1];
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
    if (!strcmp(coll, "ibarrier")) strcpy(sizes, "0");
    if (rank == 0 && !json)
        printf("%-10s %4s %9s %10s %10s %10s %8s %6s\n", "op", "n", "size", "pure_us", "compute_us", "total_us", "overlap%", "iters");
    for (char *s = strtok(sizes, ","); s; s = strtok(NULL, ",")) {
        csize = atol(s);
        int it = csize > large ? iters_large : iters, sk = csize > large ? skip_large : skip;
        bufa = calloc(csize * n + 1, 1);
        bufb = calloc(csize * n + 1, 1);
        for (long i = 0; i < csize * n; i++) bufa[i] = (char)i;
        int nw = sk > 3 ? sk : 3;
        double *warm = malloc(nw * sizeof(double)), *pures = malloc(it * sizeof(double)),
               *comps = malloc(it * sizeof(double)), *totals = malloc(it * sizeof(double));
        for (int i = 0; i < nw; i++) warm[i] = transfer(0);
        double mw = median(warm, nw), work;
        MPI_Allreduce(&mw, &work, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        for (int i = 0; i < it; i++) {
            pures[i] = transfer(0);
            double t = MPI_Wtime();
            compute(work);
            comps[i] = MPI_Wtime() - t;
            totals[i] = transfer(work);
        }
        double pure = median(pures, it), comp = median(comps, it), total = median(totals, it);
        double ov = 100 * (1 - (total - comp) / pure);
        ov = ov < 0 ? 0 : ov > 100 ? 100 : ov;
        double mine[4] = {pure, comp, total, ov}, sums[4];
        MPI_Reduce(mine, sums, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            for (int k = 0; k < 3; k++) sums[k] = sums[k] / n * 1e6;
            sums[3] /= n;
            if (json)
                printf("{\"op\":\"%s\",\"n\":%d,\"size\":%ld,\"pure_us\":%.3f,\"compute_us\":%.3f,\"total_us\":%.3f,\"overlap_pct\":%.2f,\"iters\":%d}\n",
                       coll, n, csize, sums[0], sums[1], sums[2], sums[3], it);
            else
                printf("%-10s %4d %9ld %10.2f %10.2f %10.2f %8.1f %6d\n", coll, n, csize, sums[0], sums[1], sums[2], sums[3], it);
            fflush(stdout);
        }
        free(bufa);
        free(bufb);
        free(warm);
        free(pures);
        free(comps);
        free(totals);
    }
    MPI_Finalize();
    return 0;
}
