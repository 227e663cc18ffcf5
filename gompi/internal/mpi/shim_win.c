//go:build mpi || mpich

/*
 * shim_win.c: windows (one-sided communication) of the cgo backend, one C
 * function per call as in shim.c. Every window gets MPI_ERRORS_RETURN, so
 * that an error comes back as a code. The gompi package checks ranges,
 * epochs and operators before it calls here: what MPI would call erroneous
 * (and Open MPI might not detect) never reaches the library.
 */
#include "shim.h"

#include <pthread.h>
#include <sched.h>

#define WIN(h) ((MPI_Win)(h))
#define LOCK() gompi_big_lock()
#define UNLOCK() gompi_big_unlock()

static gompi_win_result made(int err, MPI_Win w, void *base) {
	gompi_win_result r = {err, (gompi_h)MPI_WIN_NULL, base};
	if (err == MPI_SUCCESS) {
		MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
		r.win = (gompi_h)w;
	}
	return r;
}

/* The constructors are collective and block; serialized, they hold the lock
 * throughout, as the communicator constructors do. */
gompi_win_result gompi_win_create(char *base, long size, int unit, gompi_h c) {
	MPI_Win w = MPI_WIN_NULL;
	LOCK();
	int err = MPI_Win_create(base, (MPI_Aint)size, unit, MPI_INFO_NULL, COMM(c), &w);
	gompi_win_result r = made(err, w, base);
	UNLOCK();
	return r;
}

gompi_win_result gompi_win_allocate(long size, int unit, int shared, gompi_h c) {
	MPI_Win w = MPI_WIN_NULL;
	void *base = NULL;
	LOCK();
	int err = shared ? MPI_Win_allocate_shared((MPI_Aint)size, unit, MPI_INFO_NULL, COMM(c), &base, &w)
	                 : MPI_Win_allocate((MPI_Aint)size, unit, MPI_INFO_NULL, COMM(c), &base, &w);
	gompi_win_result r = made(err, w, base);
	UNLOCK();
	return r;
}

gompi_win_result gompi_win_create_dynamic(gompi_h c) {
	MPI_Win w = MPI_WIN_NULL;
	LOCK();
	int err = MPI_Win_create_dynamic(MPI_INFO_NULL, COMM(c), &w);
	gompi_win_result r = made(err, w, NULL);
	UNLOCK();
	return r;
}

gompi_shared_query_result gompi_win_shared_query(gompi_h w, int rank) {
	gompi_shared_query_result r = {0, NULL, 0};
	MPI_Aint size = 0;
	int unit = 0;
	LOCK();
	r.err = MPI_Win_shared_query(WIN(w), rank, &size, &unit, &r.base);
	UNLOCK();
	r.size = (long)size;
	return r;
}

int gompi_win_attach(gompi_h w, char *base, long size) {
	LOCK();
	int err = MPI_Win_attach(WIN(w), base, (MPI_Aint)size);
	UNLOCK();
	return err;
}

int gompi_win_detach(gompi_h w, char *base) {
	LOCK();
	int err = MPI_Win_detach(WIN(w), base);
	UNLOCK();
	return err;
}

/* The operators of accumulate beyond gompi_op's: 10 MPI_REPLACE, 11
 * MPI_NO_OP. */
gompi_h gompi_op_rma(int which) {
	switch (which) {
	case 10: return (gompi_h)MPI_REPLACE;
	case 11: return (gompi_h)MPI_NO_OP;
	}
	return gompi_op(which);
}

gompi_h gompi_type_bool(void) { return (gompi_h)MPI_C_BOOL; }

int gompi_win_op(int which, const char *origin, const char *compare, char *result, int count, gompi_h dth,
                 int target, long disp, gompi_h oph, gompi_h wh, int request, gompi_h *req) {
	MPI_Win w = WIN(wh);
	MPI_Datatype dt = DTYPE(dth);
	MPI_Op op = OP(oph);
	MPI_Aint d = (MPI_Aint)disp;
	MPI_Request q = MPI_REQUEST_NULL;
	int err = MPI_ERR_ARG;
	LOCK();
	switch (which) {
	case GOMPI_RMA_PUT:
		err = request ? MPI_Rput(origin, count, dt, target, d, count, dt, w, &q)
		              : MPI_Put(origin, count, dt, target, d, count, dt, w);
		break;
	case GOMPI_RMA_GET:
		err = request ? MPI_Rget(result, count, dt, target, d, count, dt, w, &q)
		              : MPI_Get(result, count, dt, target, d, count, dt, w);
		break;
	case GOMPI_RMA_ACC:
		err = request ? MPI_Raccumulate(origin, count, dt, target, d, count, dt, op, w, &q)
		              : MPI_Accumulate(origin, count, dt, target, d, count, dt, op, w);
		break;
	case GOMPI_RMA_GET_ACC:
		err = request ? MPI_Rget_accumulate(origin, origin ? count : 0, dt, result, count, dt, target, d, count, dt, op,
		                                    w, &q)
		              : MPI_Get_accumulate(origin, origin ? count : 0, dt, result, count, dt, target, d, count, dt, op, w);
		break;
	case GOMPI_RMA_FOP: err = MPI_Fetch_and_op(origin, result, dt, target, d, op, w); break;
	case GOMPI_RMA_CAS: err = MPI_Compare_and_swap(origin, compare, result, dt, target, d, w); break;
	}
	UNLOCK();
	if (req) *req = (gompi_h)q;
	return err;
}

/* waitable runs a synchronization that may block for other ranks; in the
 * serialized mode, MPI_Win_wait becomes a loop of MPI_Win_test that lets
 * the lock go between tries. */
int gompi_win_sync(int which, int arg, int target, gompi_h wh, int *flag) {
	MPI_Win w = WIN(wh);
	int err = MPI_ERR_ARG;
	if (which == GOMPI_WIN_WAIT && gompi_serialized()) {
		for (;;) {
			int done = 0;
			LOCK();
			err = MPI_Win_test(w, &done);
			UNLOCK();
			if (err != MPI_SUCCESS || done) return err;
			sched_yield();
		}
	}
	LOCK();
	switch (which) {
	case GOMPI_WIN_FENCE: err = MPI_Win_fence(arg, w); break;
	case GOMPI_WIN_LOCK: err = MPI_Win_lock(arg, target, 0, w); break;
	case GOMPI_WIN_UNLOCK: err = MPI_Win_unlock(target, w); break;
	case GOMPI_WIN_LOCK_ALL: err = MPI_Win_lock_all(0, w); break;
	case GOMPI_WIN_UNLOCK_ALL: err = MPI_Win_unlock_all(w); break;
	case GOMPI_WIN_FLUSH: err = MPI_Win_flush(target, w); break;
	case GOMPI_WIN_FLUSH_ALL: err = MPI_Win_flush_all(w); break;
	case GOMPI_WIN_FLUSH_LOCAL: err = MPI_Win_flush_local(target, w); break;
	case GOMPI_WIN_FLUSH_LOCAL_ALL: err = MPI_Win_flush_local_all(w); break;
	case GOMPI_WIN_SYNC: err = MPI_Win_sync(w); break;
	case GOMPI_WIN_COMPLETE: err = MPI_Win_complete(w); break;
	case GOMPI_WIN_WAIT: err = MPI_Win_wait(w); break;
	case GOMPI_WIN_TEST: err = MPI_Win_test(w, flag); break;
	case GOMPI_WIN_FREE: err = MPI_Win_free(&w); break;
	}
	UNLOCK();
	return err;
}

int gompi_win_post_start(int start, int n, const int *ranks, gompi_h wh) {
	MPI_Win w = WIN(wh);
	MPI_Group all = MPI_GROUP_NULL, g = MPI_GROUP_NULL;
	LOCK();
	int err = MPI_Win_get_group(w, &all);
	if (err == MPI_SUCCESS) err = MPI_Group_incl(all, n, ranks, &g);
	if (err == MPI_SUCCESS) err = start ? MPI_Win_start(g, 0, w) : MPI_Win_post(g, 0, w);
	if (g != MPI_GROUP_NULL) MPI_Group_free(&g);
	if (all != MPI_GROUP_NULL) MPI_Group_free(&all);
	UNLOCK();
	return err;
}

/* read_locked copies n bytes of target's part of w from displacement 0
 * into buf under a shared lock: one call for the region tables of dynamic
 * windows (win_mpi.go). */
int gompi_win_read_locked(gompi_h wh, int target, char *buf, int n) {
	MPI_Win w = WIN(wh);
	LOCK();
	int err = MPI_Win_lock(MPI_LOCK_SHARED, target, 0, w);
	if (err == MPI_SUCCESS) {
		err = MPI_Get(buf, n, MPI_BYTE, target, 0, n, MPI_BYTE, w);
		int uerr = MPI_Win_unlock(target, w);
		if (err == MPI_SUCCESS) err = uerr;
	}
	UNLOCK();
	return err;
}
