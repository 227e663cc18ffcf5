/*
 * callcost.c: the C reference for the per-call cost of gompi's cgo backend
 * (go test -tags mpi -bench Call ./gompi). One rank, the same MPI calls as
 * the Go benchmarks, timed in batches; prints the median ns per operation.
 * Initialized with MPI_THREAD_MULTIPLE, as gompi over MPI is. The
 * SendRecvSelf loop relies on the library buffering small sends to self,
 * as Open MPI does (MPI does not promise it).
 *
 *   mpicc -O2 -o callcost callcost.c
 *   mpirun -n 1 ./callcost
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define REPS 7

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const char *name, double *t) {
    qsort(t, REPS, sizeof t[0], cmp);
    printf("%-22s %8.1f ns/op (min %.1f, max %.1f)\n", name, t[REPS / 2], t[0], t[REPS - 1]);
}

int main(int argc, char **argv) {
    int provided, flag;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    const int n = 1000000;
    double t[REPS];
    char buf[8] = {0}, rbuf[8];
    MPI_Status st;
    MPI_Request r[2];
    for (int k = 0; k < REPS; k++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < n; i++) MPI_Iprobe(0, 5, MPI_COMM_WORLD, &flag, &st);
        t[k] = (MPI_Wtime() - t0) / n * 1e9;
    }
    report("Iprobe", t);
    for (int k = 0; k < REPS; k++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < n / 4; i++) {
            MPI_Send(buf, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            MPI_Recv(rbuf, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st);
        }
        t[k] = (MPI_Wtime() - t0) / (n / 4) * 1e9;
    }
    report("SendRecvSelf", t);
    for (int k = 0; k < REPS; k++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < n / 4; i++) {
            MPI_Irecv(rbuf, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &r[0]);
            MPI_Isend(buf, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &r[1]);
            MPI_Wait(&r[0], &st);
            MPI_Wait(&r[1], &st);
        }
        t[k] = (MPI_Wtime() - t0) / (n / 4) * 1e9;
    }
    report("IrecvIsendWaitSelf", t);
    for (int k = 0; k < REPS; k++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < n / 4; i++) MPI_Allreduce(buf, rbuf, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        t[k] = (MPI_Wtime() - t0) / (n / 4) * 1e9;
    }
    report("AllreduceSelf", t);
    MPI_Finalize();
    return 0;
}
