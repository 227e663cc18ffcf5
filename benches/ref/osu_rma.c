/*
 * osu_rma.c: the reference for the one-sided tests of `benches osu`
 * (benches/osu/onesided.go): the same loops over MPI's windows, which are
 * the loops of the OSU Micro-Benchmarks 7.4 one-sided tests (osu_put_latency,
 * osu_get_bw, osu_fop_latency, ...), plus win_create, the time to make and
 * free a window. Rank 0 is the origin, rank 1 the target; the tests other
 * than win_create run on exactly 2 ranks.
 *
 *   mpicc -O2 -o osu_rma osu_rma.c
 *   mpirun -n 2 ./osu_rma --op put_latency -w allocate -s flush --sizes 8,4194304
 *
 * Output: CSV with the columns of `benches osu --format csv` for one-sided
 * tests (op,win,sync,n,size,value,unit,iters); value in µs per operation
 * for latencies and win_create, MB/s for bandwidths.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int iters = 10000, skip = 100, iters_large = 1000, skip_large = 10, large = 8192, wsize = 64;
static const char *op = "put_latency", *wkind = "allocate", *sync = "flush";

static MPI_Win win;
static char *mem;
static MPI_Aint tdisp; /* rank 1's first byte: 0, or its address in a dynamic window */

static void make_win(long bytes) {
    if (!strcmp(wkind, "create")) {
        mem = calloc(bytes + 8, 1);
        MPI_Win_create(mem, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        tdisp = 0;
    } else if (!strcmp(wkind, "allocate")) {
        MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
        tdisp = 0;
    } else {
        MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        mem = calloc(bytes + 8, 1);
        MPI_Win_attach(win, mem, bytes + 8);
        MPI_Get_address(mem, &tdisp);
        MPI_Bcast(&tdisp, 1, MPI_AINT, 1, MPI_COMM_WORLD);
    }
}

static void free_win(void) {
    if (!strcmp(wkind, "dynamic")) MPI_Win_detach(win, mem);
    MPI_Win_free(&win);
    if (strcmp(wkind, "allocate")) free(mem);
}

/* one operation of n bytes (n/4 ints, one int64) from rank 0's buffers */
static char *obuf, *rbuf;
static void one_op(int target, long n) {
    int64_t one = 1, cmp = 0;
    if (!strcmp(op, "put_latency")) MPI_Put(obuf, n, MPI_BYTE, target, tdisp, n, MPI_BYTE, win);
    else if (!strcmp(op, "get_latency")) MPI_Get(rbuf, n, MPI_BYTE, target, tdisp, n, MPI_BYTE, win);
    else if (!strcmp(op, "acc_latency")) MPI_Accumulate(obuf, n / 4, MPI_INT, target, tdisp, n / 4, MPI_INT, MPI_SUM, win);
    else if (!strcmp(op, "get_acc_latency"))
        MPI_Get_accumulate(obuf, n / 4, MPI_INT, rbuf, n / 4, MPI_INT, target, tdisp, n / 4, MPI_INT, MPI_SUM, win);
    else if (!strcmp(op, "fop_latency")) MPI_Fetch_and_op(&one, rbuf, MPI_INT64_T, target, tdisp, MPI_SUM, win);
    else if (!strcmp(op, "cas_latency")) MPI_Compare_and_swap(&one, &cmp, rbuf, MPI_INT64_T, target, tdisp, win);
}

static void burst(int target, long n) {
    for (int j = 0; j < wsize; j++) {
        if (!strcmp(op, "get_bw")) MPI_Get(rbuf + j * n, n, MPI_BYTE, target, tdisp + j * n, n, MPI_BYTE, win);
        else MPI_Put(obuf + j * n, n, MPI_BYTE, target, tdisp + j * n, n, MPI_BYTE, win);
    }
}

/* passive runs body in the passive-target loop of -s (lock, lock_all,
 * flush, flush_local) against rank 1 and returns the seconds of the timed
 * iterations. */
static double passive(void (*body)(int, long), long n, int it, int sk) {
    int lock = !strcmp(sync, "lock"), all = !strcmp(sync, "lock_all"), local = !strcmp(sync, "flush_local");
    double t = 0;
    if (!lock && !all) MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    for (int i = 0; i < sk + it; i++) {
        if (i == sk) t = MPI_Wtime();
        if (lock) MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        if (all) MPI_Win_lock_all(0, win);
        body(1, n);
        if (lock) MPI_Win_unlock(1, win);
        else if (all) MPI_Win_unlock_all(win);
        else if (local) MPI_Win_flush_local(1, win);
        else MPI_Win_flush(1, win);
    }
    double el = MPI_Wtime() - t;
    if (!lock && !all) MPI_Win_unlock(1, win);
    return el;
}

static double latency(long n, int it, int sk, int me) {
    double t = 0, el = 0, per = it;
    make_win(n);
    MPI_Barrier(MPI_COMM_WORLD);
    if (!strcmp(sync, "fence") || !strcmp(sync, "pscw")) {
        int other = 1 - me;
        MPI_Group world, peer;
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_incl(world, 1, &other, &peer);
        per = 2.0 * it;
        if (!strcmp(sync, "fence")) MPI_Win_fence(0, win);
        for (int i = 0; i < sk + it; i++) {
            if (i == sk) t = MPI_Wtime();
            for (int turn = 0; turn < 2; turn++) {
                int mine = turn == me;
                if (!strcmp(sync, "fence")) {
                    if (mine) one_op(other, n);
                    MPI_Win_fence(0, win);
                } else if (mine) {
                    MPI_Win_start(peer, 0, win);
                    one_op(other, n);
                    MPI_Win_complete(win);
                } else {
                    MPI_Win_post(peer, 0, win);
                    MPI_Win_wait(win);
                }
            }
        }
        el = MPI_Wtime() - t;
        MPI_Group_free(&peer);
        MPI_Group_free(&world);
    } else if (me == 0) {
        el = passive(one_op, n, it, sk);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free_win();
    return el * 1e6 / per;
}


static double bandwidth(long n, int it, int sk, int me) {
    double t = 0, el = 0, bytes = (double)n * wsize * it;
    int other = 1 - me;
    MPI_Group world, peer;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &other, &peer);
    make_win(n * wsize);
    MPI_Barrier(MPI_COMM_WORLD);
    int fence = !strcmp(sync, "fence"), pscw = !strcmp(sync, "pscw");
    if (!strcmp(op, "put_bibw")) {
        bytes *= 2;
        for (int i = 0; i < sk + it; i++) {
            if (i == sk) t = MPI_Wtime();
            if (fence) {
                MPI_Win_fence(0, win);
                burst(other, n);
                MPI_Win_fence(0, win);
            } else {
                MPI_Win_post(peer, 0, win);
                MPI_Win_start(peer, 0, win);
                burst(other, n);
                MPI_Win_complete(win);
                MPI_Win_wait(win);
            }
        }
        el = MPI_Wtime() - t;
    } else if (fence || pscw) {
        for (int i = 0; i < sk + it; i++) {
            if (i == sk) t = MPI_Wtime();
            if (fence) {
                MPI_Win_fence(0, win);
                if (me == 0) burst(1, n);
                MPI_Win_fence(0, win);
            } else if (me == 1) {
                MPI_Win_post(peer, 0, win);
                MPI_Win_wait(win);
            } else {
                MPI_Win_start(peer, 0, win);
                burst(1, n);
                MPI_Win_complete(win);
            }
        }
        el = MPI_Wtime() - t;
    } else if (me == 0) {
        el = passive(burst, n, it, sk);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free_win();
    MPI_Group_free(&peer);
    MPI_Group_free(&world);
    return bytes / el / 1e6;
}

static double win_create(long n, int it, int sk) {
    double total = 0;
    for (int i = 0; i < sk + it; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        make_win(n);
        double el = MPI_Wtime() - t, slowest;
        free_win();
        MPI_Allreduce(&el, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (i >= sk) total += slowest;
    }
    return total * 1e6 / it;
}

int main(int argc, char **argv) {
    char sizes[1024] = "8";
    int me, n, provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--op")) op = v;
        else if (!strcmp(k, "-w") || !strcmp(k, "--win")) wkind = v;
        else if (!strcmp(k, "-s") || !strcmp(k, "--sync")) sync = v;
        else if (!strcmp(k, "--sizes")) snprintf(sizes, sizeof sizes, "%s", v);
        else if (!strcmp(k, "--iters")) iters = atoi(v);
        else if (!strcmp(k, "--skip")) skip = atoi(v);
        else if (!strcmp(k, "--iters-large")) iters_large = atoi(v);
        else if (!strcmp(k, "--skip-large")) skip_large = atoi(v);
        else if (!strcmp(k, "--large")) large = atoi(v);
        else if (!strcmp(k, "--window-size")) wsize = atoi(v);
    }
    int is_create = !strcmp(op, "win_create");
    if (!is_create && n != 2) {
        if (me == 0) fprintf(stderr, "osu_rma: %s runs on exactly 2 ranks\n", op);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (me == 0) printf("op,win,sync,n,size,value,unit,iters\n");
    for (char *tok = strtok(sizes, ","); tok; tok = strtok(NULL, ",")) {
        long size = atol(tok);
        if (!strcmp(op, "fop_latency") || !strcmp(op, "cas_latency")) size = 8;
        int it = size > large ? iters_large : iters, sk = size > large ? skip_large : skip;
        long alloc = size < 8 ? 8 : size;
        obuf = calloc(alloc * wsize, 1);
        rbuf = calloc(alloc * wsize, 1);
        double v;
        const char *unit = "us";
        if (is_create) v = win_create(size, it, sk);
        else if (!strcmp(op, "put_bw") || !strcmp(op, "get_bw") || !strcmp(op, "put_bibw")) {
            unit = "MB/s";
            v = bandwidth(size, it, sk, me);
        } else v = latency(alloc, it, sk, me);
        if (me == 0) printf("%s,%s,%s,%d,%ld,%.3f,%s,%d\n", op, wkind, sync, n, size, v, unit, it);
        free(obuf);
        free(rbuf);
        if (!strcmp(op, "fop_latency") || !strcmp(op, "cas_latency")) break;
    }
    MPI_Finalize();
    return 0;
}
