/*
 * hello.c: the MPI counterpart of examples/hello, for timing job start-up
 * side by side: each rank prints "rank R of N on HOST".
 *
 *   mpicc -O2 -o hello hello.c && mpirun -n 64 --oversubscribe ./hello
 *
 * With --init-time it prints instead, on rank 0, when the last rank got past
 * MPI_Init (microseconds since the Unix epoch), as test/rankprog --mode
 * inittime does for gompi: benches/ref/startup.sh subtracts the launch time.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

int main(int argc, char **argv) {
    int rank, size, len;
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Init(&argc, &argv);
    struct timeval tv;
    gettimeofday(&tv, NULL);
    long long past = (long long)tv.tv_sec * 1000000 + tv.tv_usec, last = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && !strcmp(argv[1], "--init-time")) {
        MPI_Reduce(&past, &last, 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0) printf("ranks=%d last past Init at unix-us=%lld\n", size, last);
        MPI_Finalize();
        return 0;
    }
    MPI_Get_processor_name(host, &len);
    printf("rank %d of %d on %s\n", rank, size, host);
    MPI_Finalize();
    return 0;
}
