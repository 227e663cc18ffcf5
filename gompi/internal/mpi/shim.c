//go:build mpi || mpich

/*
 * shim.c: one C function per operation of the cgo backend.
 *
 * Thread level. gompi promises MPI_THREAD_MULTIPLE, so gompi_init asks for
 * it. Where the library gives less, every MPI call here is made under one
 * lock (serialized), and the blocking ones become their nonblocking form
 * plus a loop of MPI_Test that releases the lock between tries, so that a
 * goroutine blocked in a receive does not keep the others out of MPI.
 */
#include "shim.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

static int serial;
static pthread_mutex_t big = PTHREAD_MUTEX_INITIALIZER;

#define LOCK()                               \
	do {                                     \
		if (serial) pthread_mutex_lock(&big); \
	} while (0)
#define UNLOCK()                               \
	do {                                       \
		if (serial) pthread_mutex_unlock(&big); \
	} while (0)

/* finish waits for *r by MPI_Test under the lock, yielding between tries:
 * the serialized form of MPI_Wait. */
static int finish(MPI_Request *r, MPI_Status *st) {
	for (;;) {
		int flag = 0;
		pthread_mutex_lock(&big);
		int err = MPI_Test(r, &flag, st);
		pthread_mutex_unlock(&big);
		if (err != MPI_SUCCESS || flag) return err;
		sched_yield();
	}
}

/* A status starts as "unknown source and tag": some libraries (MPICH) leave
 * the status of a failed receive alone, and fill reads it all the same. */
#define EMPTY_STATUS {.MPI_SOURCE = MPI_ANY_SOURCE, .MPI_TAG = MPI_ANY_TAG}

static void fill(gompi_status *out, MPI_Status *st, int cancel) {
	out->source = st->MPI_SOURCE == MPI_ANY_SOURCE ? GOMPI_ANY_SOURCE
	              : st->MPI_SOURCE == MPI_PROC_NULL ? GOMPI_PROC_NULL
	                                                : st->MPI_SOURCE;
	out->tag = st->MPI_TAG == MPI_ANY_TAG ? GOMPI_ANY_TAG : st->MPI_TAG;
	int n = 0;
	if (out->err != MPI_SUCCESS || MPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED) n = 0;
	out->count = n; /* after an error, the caller knows better (see truncated in comm.go) */
	if (cancel) {
		int c = 0;
		MPI_Test_cancelled(st, &c);
		out->cancelled = c;
	}
}

gompi_init_result gompi_init(int force_serial) {
	gompi_init_result r = {0};
	int inited = 0;
	MPI_Initialized(&inited);
	if (!inited) {
		r.err = MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &r.provided);
		if (r.err != MPI_SUCCESS) return r;
	} else {
		MPI_Query_thread(&r.provided);
	}
	serial = force_serial || r.provided < MPI_THREAD_MULTIPLE;
	r.serialized = serial;
	/* Errors come back as codes instead of aborting the job. Communicators
	 * made from the world inherit the handler. */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	void *v = NULL;
	int flag = 0;
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
	r.tag_ub = flag && v ? *(int *)v : 32767;
	return r;
}

int gompi_finalize(void) {
	LOCK();
	int err = MPI_Finalize();
	UNLOCK();
	return err;
}

/* No lock: Abort must get through even while another thread holds it. */
void gompi_abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

int gompi_serialized(void) { return serial; }

/* The lock of the serialized mode, for the other C files of the shim
 * (shim_win.c). */
void gompi_big_lock(void) {
	if (serial) pthread_mutex_lock(&big);
}
void gompi_big_unlock(void) {
	if (serial) pthread_mutex_unlock(&big);
}

gompi_h gompi_comm_world(void) { return (gompi_h)MPI_COMM_WORLD; }
gompi_h gompi_comm_null(void) { return (gompi_h)MPI_COMM_NULL; }

int gompi_comm_rank(gompi_h c) {
	int r = -1;
	LOCK();
	MPI_Comm_rank(COMM(c), &r);
	UNLOCK();
	return r;
}

int gompi_comm_size(gompi_h c) {
	int n = 0;
	LOCK();
	MPI_Comm_size(COMM(c), &n);
	UNLOCK();
	return n;
}

/* Communicator constructors are blocking collectives; serialized, they hold
 * the lock throughout (they wait only for the other ranks' same call). */
gompi_comm gompi_comm_dup(gompi_h c, const char *name) {
	gompi_comm r = {0, (gompi_h)MPI_COMM_NULL};
	MPI_Comm nc = MPI_COMM_NULL;
	LOCK();
	r.err = MPI_Comm_dup(COMM(c), &nc);
	if (r.err == MPI_SUCCESS) {
		MPI_Comm_set_errhandler(nc, MPI_ERRORS_RETURN);
		MPI_Comm_set_name(nc, (char *)name);
	}
	UNLOCK();
	r.comm = (gompi_h)nc;
	return r;
}

gompi_comm gompi_comm_split(gompi_h c, int color, int key, const char *name) {
	gompi_comm r = {0, (gompi_h)MPI_COMM_NULL};
	MPI_Comm nc = MPI_COMM_NULL;
	LOCK();
	r.err = MPI_Comm_split(COMM(c), color < 0 ? MPI_UNDEFINED : color, key, &nc);
	if (r.err == MPI_SUCCESS && nc != MPI_COMM_NULL) {
		MPI_Comm_set_errhandler(nc, MPI_ERRORS_RETURN);
		MPI_Comm_set_name(nc, (char *)name);
	}
	UNLOCK();
	r.comm = (gompi_h)nc;
	return r;
}

/* The communicator of the ranks of c listed (ranks of c, in the new order),
 * made by them alone (MPI_Comm_create_group). */
gompi_comm gompi_comm_create_group(gompi_h c, int n, const int *ranks, int tag, const char *name) {
	gompi_comm r = {0, (gompi_h)MPI_COMM_NULL};
	MPI_Comm nc = MPI_COMM_NULL;
	MPI_Group all = MPI_GROUP_NULL, sub = MPI_GROUP_NULL;
	LOCK();
	r.err = MPI_Comm_group(COMM(c), &all);
	if (r.err == MPI_SUCCESS)
		r.err = MPI_Group_incl(all, n, ranks, &sub);
	if (r.err == MPI_SUCCESS)
		r.err = MPI_Comm_create_group(COMM(c), sub, tag, &nc);
	if (r.err == MPI_SUCCESS && nc != MPI_COMM_NULL) {
		MPI_Comm_set_errhandler(nc, MPI_ERRORS_RETURN);
		MPI_Comm_set_name(nc, (char *)name);
	}
	if (sub != MPI_GROUP_NULL)
		MPI_Group_free(&sub);
	if (all != MPI_GROUP_NULL)
		MPI_Group_free(&all);
	UNLOCK();
	r.comm = (gompi_h)nc;
	return r;
}

gompi_comm gompi_comm_shared(gompi_h c) {
	gompi_comm r = {0, (gompi_h)MPI_COMM_NULL};
	MPI_Comm nc = MPI_COMM_NULL;
	LOCK();
	r.err = MPI_Comm_split_type(COMM(c), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &nc);
	UNLOCK();
	r.comm = (gompi_h)nc;
	return r;
}

int gompi_comm_free(gompi_h c) {
	MPI_Comm x = COMM(c);
	LOCK();
	int err = MPI_Comm_free(&x);
	UNLOCK();
	return err;
}

/* translate_ranks sets world[i] to the world rank of rank i of c. */
int gompi_translate_ranks(gompi_h c, int n, int *world) {
	MPI_Group g, w;
	int *ranks = malloc(sizeof(int) * (n > 0 ? n : 1));
	for (int i = 0; i < n; i++) ranks[i] = i;
	LOCK();
	int err = MPI_Comm_group(COMM(c), &g);
	if (err == MPI_SUCCESS) err = MPI_Comm_group(MPI_COMM_WORLD, &w);
	if (err == MPI_SUCCESS) {
		err = MPI_Group_translate_ranks(g, n, ranks, w, world);
		MPI_Group_free(&g);
		MPI_Group_free(&w);
	}
	UNLOCK();
	free(ranks);
	return err;
}

int gompi_processor_name(char *buf, int len) {
	char name[MPI_MAX_PROCESSOR_NAME];
	int n = 0;
	LOCK();
	int err = MPI_Get_processor_name(name, &n);
	UNLOCK();
	if (err != MPI_SUCCESS) return 0;
	if (n >= len) n = len - 1;
	memcpy(buf, name, n);
	buf[n] = 0;
	return n;
}

/* allgather_names gathers every world rank's len-byte name into all. */
int gompi_allgather_names(const char *mine, char *all, int len) {
	LOCK();
	int err = MPI_Allgather(mine, len, MPI_CHAR, all, len, MPI_CHAR, MPI_COMM_WORLD);
	UNLOCK();
	return err;
}

static int isend(const char *buf, int n, int dest, int tag, int mode, MPI_Comm c, MPI_Request *r) {
	switch (mode) {
	case GOMPI_MODE_SYNC: return MPI_Issend(buf, n, MPI_BYTE, SRC(dest), tag, c, r);
	case GOMPI_MODE_READY: return MPI_Irsend(buf, n, MPI_BYTE, SRC(dest), tag, c, r);
	}
	return MPI_Isend(buf, n, MPI_BYTE, SRC(dest), tag, c, r);
}

int gompi_send(const char *buf, int n, int dest, int tag, int mode, gompi_h ch) {
	MPI_Comm c = COMM(ch);
	if (serial) {
		MPI_Request r;
		pthread_mutex_lock(&big);
		int err = isend(buf, n, dest, tag, mode, c, &r);
		pthread_mutex_unlock(&big);
		return err != MPI_SUCCESS ? err : finish(&r, MPI_STATUS_IGNORE);
	}
	switch (mode) {
	case GOMPI_MODE_SYNC: return MPI_Ssend(buf, n, MPI_BYTE, SRC(dest), tag, c);
	case GOMPI_MODE_READY: return MPI_Rsend(buf, n, MPI_BYTE, SRC(dest), tag, c);
	}
	return MPI_Send(buf, n, MPI_BYTE, SRC(dest), tag, c);
}

gompi_req gompi_isend(const char *buf, int n, int dest, int tag, int mode, gompi_h ch) {
	gompi_req r = {0, (gompi_h)MPI_REQUEST_NULL};
	MPI_Comm c = COMM(ch);
	MPI_Request q = MPI_REQUEST_NULL;
	LOCK();
	r.err = isend(buf, n, dest, tag, mode, c, &q);
	UNLOCK();
	r.req = (gompi_h)q;
	return r;
}

gompi_req gompi_send_init(const char *buf, int n, int dest, int tag, int mode, gompi_h ch) {
	gompi_req r = {0, (gompi_h)MPI_REQUEST_NULL};
	MPI_Comm c = COMM(ch);
	MPI_Request q = MPI_REQUEST_NULL;
	LOCK();
	switch (mode) {
	case GOMPI_MODE_SYNC: r.err = MPI_Ssend_init(buf, n, MPI_BYTE, SRC(dest), tag, c, &q); break;
	case GOMPI_MODE_READY: r.err = MPI_Rsend_init(buf, n, MPI_BYTE, SRC(dest), tag, c, &q); break;
	default: r.err = MPI_Send_init(buf, n, MPI_BYTE, SRC(dest), tag, c, &q);
	}
	UNLOCK();
	r.req = (gompi_h)q;
	return r;
}

int gompi_start(gompi_h *r) {
	MPI_Request q = REQ(*r);
	LOCK();
	int err = MPI_Start(&q);
	UNLOCK();
	*r = (gompi_h)q;
	return err;
}

gompi_status gompi_wait(gompi_h *r) {
	gompi_status out = {0};
	MPI_Status st = EMPTY_STATUS;
	MPI_Request q = REQ(*r);
	out.err = serial ? finish(&q, &st) : MPI_Wait(&q, &st);
	*r = (gompi_h)q;
	fill(&out, &st, 1);
	out.flag = 1;
	return out;
}

gompi_status gompi_test(gompi_h *r) {
	gompi_status out = {0};
	MPI_Status st = EMPTY_STATUS;
	MPI_Request q = REQ(*r);
	LOCK();
	out.err = MPI_Test(&q, &out.flag, &st);
	UNLOCK();
	*r = (gompi_h)q;
	if (out.flag) fill(&out, &st, 1);
	return out;
}

int gompi_cancel(gompi_h *r) {
	MPI_Request q = REQ(*r);
	LOCK();
	int err = MPI_Cancel(&q);
	UNLOCK();
	return err;
}

int gompi_request_free(gompi_h *r) {
	MPI_Request q = REQ(*r);
	LOCK();
	int err = MPI_Request_free(&q);
	UNLOCK();
	*r = (gompi_h)q;
	return err;
}

gompi_status gompi_probe(int src, int tag, gompi_h ch) {
	MPI_Comm c = COMM(ch);
	gompi_status out = {0};
	MPI_Status st = EMPTY_STATUS;
	if (serial) {
		for (;;) {
			pthread_mutex_lock(&big);
			out.err = MPI_Iprobe(SRC(src), TAG(tag), c, &out.flag, &st);
			pthread_mutex_unlock(&big);
			if (out.err != MPI_SUCCESS || out.flag) break;
			sched_yield();
		}
	} else {
		out.err = MPI_Probe(SRC(src), TAG(tag), c, &st);
		out.flag = 1;
	}
	if (out.err == MPI_SUCCESS) fill(&out, &st, 0);
	return out;
}

/* Receives never let the library write past the buffer. Open MPI 4.1
 * writes a whole message into a buffer shorter than it when the message
 * comes by a rendezvous protocol (shared-memory single copy, RDMA over TCP),
 * although it returns MPI_ERR_TRUNCATE: the bytes past the buffer overwrite
 * whatever follows it (in a Go program, the Go heap). So every receive
 * learns the message's size first, by a matched probe (which takes the
 * message out of matching, so no other thread can receive it meanwhile),
 * then receives it into the buffer when it fits, or into a buffer of its
 * own size (a bounce buffer) of which the first n bytes are copied. */

static void fill_probe(gompi_mprobe_result *out, MPI_Status *st) {
	out->source = st->MPI_SOURCE;
	out->tag = st->MPI_TAG;
	int n = 0;
	if (MPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED) n = 0;
	out->count = n;
}

gompi_mprobe_result gompi_improbe(int src, int tag, gompi_h ch) {
	gompi_mprobe_result out = {0};
	MPI_Status st = EMPTY_STATUS;
	MPI_Message m = MPI_MESSAGE_NULL;
	LOCK();
	out.err = MPI_Improbe(SRC(src), TAG(tag), COMM(ch), &out.flag, &m, &st);
	UNLOCK();
	if (out.err == MPI_SUCCESS && out.flag) fill_probe(&out, &st);
	out.msg = (gompi_h)m;
	return out;
}

/* gompi_mprobe blocks until a message matches; serialized, it loops over
 * MPI_Improbe, releasing the lock between tries. */
gompi_mprobe_result gompi_mprobe(int src, int tag, gompi_h ch) {
	MPI_Comm c = COMM(ch);
	gompi_mprobe_result out = {0};
	MPI_Status st = EMPTY_STATUS;
	MPI_Message m = MPI_MESSAGE_NULL;
	if (serial) {
		for (;;) {
			pthread_mutex_lock(&big);
			out.err = MPI_Improbe(SRC(src), TAG(tag), c, &out.flag, &m, &st);
			pthread_mutex_unlock(&big);
			if (out.err != MPI_SUCCESS || out.flag) break;
			sched_yield();
		}
	} else {
		out.err = MPI_Mprobe(SRC(src), TAG(tag), c, &m, &st);
		out.flag = 1;
	}
	if (out.err == MPI_SUCCESS) fill_probe(&out, &st);
	out.msg = (gompi_h)m;
	return out;
}

/* mrecv receives the probed message of count bytes into buf of n bytes;
 * a longer message goes through a bounce buffer and MPI_ERR_TRUNCATE is
 * returned with the message's size in count. */
gompi_status gompi_mrecv(char *buf, int n, int count, gompi_h *msg) {
	gompi_status out = {0};
	MPI_Status st = EMPTY_STATUS;
	MPI_Message m = (MPI_Message)(*msg);
	char *into = buf;
	if (count > n) {
		into = malloc(count);
		if (into == NULL) {
			out.err = MPI_ERR_NO_MEM;
			return out;
		}
	}
	if (serial) {
		MPI_Request r;
		pthread_mutex_lock(&big);
		out.err = MPI_Imrecv(into, count, MPI_BYTE, &m, &r);
		pthread_mutex_unlock(&big);
		if (out.err == MPI_SUCCESS) out.err = finish(&r, &st);
	} else {
		out.err = MPI_Mrecv(into, count, MPI_BYTE, &m, &st);
	}
	*msg = (gompi_h)m;
	fill(&out, &st, 0);
	out.flag = 1;
	if (into != buf) {
		if (out.err == MPI_SUCCESS) {
			memcpy(buf, into, n);
			out.err = MPI_ERR_TRUNCATE;
		}
		free(into);
	}
	if (out.err == MPI_ERR_TRUNCATE || out.err == MPI_SUCCESS) out.count = count;
	return out;
}

/* recv_probed is a blocking receive: a matched probe, then mrecv. */
gompi_status gompi_recv_probed(char *buf, int n, int src, int tag, gompi_h ch) {
	gompi_mprobe_result p = gompi_mprobe(src, tag, ch);
	if (p.err != MPI_SUCCESS) {
		gompi_status out = {.err = p.err, .source = GOMPI_ANY_SOURCE, .tag = GOMPI_ANY_TAG};
		return out;
	}
	gompi_status out = gompi_mrecv(buf, n, p.count, &p.msg);
	out.source = p.source;
	out.tag = p.tag;
	return out;
}

/* imrecv starts the receive of a probed message into buf, which the caller
 * made at least count bytes long (a bounce buffer if need be). */
gompi_req gompi_imrecv(char *buf, int count, gompi_h *msg) {
	gompi_req r = {0, (gompi_h)MPI_REQUEST_NULL};
	MPI_Message m = (MPI_Message)(*msg);
	MPI_Request q = MPI_REQUEST_NULL;
	LOCK();
	r.err = MPI_Imrecv(buf, count, MPI_BYTE, &m, &q);
	UNLOCK();
	*msg = (gompi_h)m;
	r.req = (gompi_h)q;
	return r;
}

/* gompi_improbe_recv is one round of matching for a queued receive of n
 * bytes into buf: MPI_Improbe, then, if a message matched and fits in n
 * bytes, MPI_Imrecv into buf and one MPI_Test, in one call from Go (a
 * 0-byte exchange pays for one cgo call instead of three). A longer
 * message is left to the caller (probe.msg) for its bounce buffer. */
gompi_probe_recv_result gompi_improbe_recv(int src, int tag, gompi_h ch, char *buf, int n) {
	gompi_probe_recv_result out = {{0}, 0, (gompi_h)MPI_REQUEST_NULL, {0}};
	MPI_Status st = EMPTY_STATUS;
	MPI_Message m = MPI_MESSAGE_NULL;
	MPI_Request q = MPI_REQUEST_NULL;
	LOCK();
	out.probe.err = MPI_Improbe(SRC(src), TAG(tag), COMM(ch), &out.probe.flag, &m, &st);
	if (out.probe.err == MPI_SUCCESS && out.probe.flag) {
		fill_probe(&out.probe, &st);
		if (out.probe.count <= n) {
			out.received = 1;
			out.st.err = MPI_Imrecv(buf, out.probe.count, MPI_BYTE, &m, &q);
			if (out.st.err == MPI_SUCCESS) {
				st = (MPI_Status)EMPTY_STATUS;
				out.st.err = MPI_Test(&q, &out.st.flag, &st);
			}
		}
	}
	UNLOCK();
	if (out.received && out.st.err == MPI_SUCCESS && out.st.flag) fill(&out.st, &st, 1);
	out.probe.msg = (gompi_h)m;
	out.req = (gompi_h)q;
	return out;
}

gompi_status gompi_iprobe(int src, int tag, gompi_h ch) {
	MPI_Comm c = COMM(ch);
	gompi_status out = {0};
	MPI_Status st = EMPTY_STATUS;
	LOCK();
	out.err = MPI_Iprobe(SRC(src), TAG(tag), c, &out.flag, &st);
	UNLOCK();
	if (out.err == MPI_SUCCESS && out.flag) fill(&out, &st, 0);
	return out;
}

/* coll runs one collective, blocking or (nb) nonblocking; serialized, a
 * blocking one runs as its nonblocking form and a loop of MPI_Test. */
static int coll(int which, int nb, const void *sbuf, void *rbuf, int scount, int rcount,
                const int *scounts, const int *sdispls, const int *rcounts, const int *rdispls,
                MPI_Datatype *types, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm c, MPI_Request *r) {
	switch (which) {
	case GOMPI_BARRIER: return nb ? MPI_Ibarrier(c, r) : MPI_Barrier(c);
	case GOMPI_BCAST: return nb ? MPI_Ibcast(rbuf, rcount, dt, root, c, r) : MPI_Bcast(rbuf, rcount, dt, root, c);
	case GOMPI_REDUCE:
		return nb ? MPI_Ireduce(sbuf, rbuf, rcount, dt, op, root, c, r) : MPI_Reduce(sbuf, rbuf, rcount, dt, op, root, c);
	case GOMPI_ALLREDUCE:
		return nb ? MPI_Iallreduce(sbuf, rbuf, rcount, dt, op, c, r) : MPI_Allreduce(sbuf, rbuf, rcount, dt, op, c);
	case GOMPI_GATHER:
		return nb ? MPI_Igather(sbuf, scount, dt, rbuf, rcount, dt, root, c, r)
		          : MPI_Gather(sbuf, scount, dt, rbuf, rcount, dt, root, c);
	case GOMPI_GATHERV:
		return nb ? MPI_Igatherv(sbuf, scount, dt, rbuf, rcounts, rdispls, dt, root, c, r)
		          : MPI_Gatherv(sbuf, scount, dt, rbuf, rcounts, rdispls, dt, root, c);
	case GOMPI_SCATTER:
		return nb ? MPI_Iscatter(sbuf, scount, dt, rbuf, rcount, dt, root, c, r)
		          : MPI_Scatter(sbuf, scount, dt, rbuf, rcount, dt, root, c);
	case GOMPI_SCATTERV:
		return nb ? MPI_Iscatterv(sbuf, scounts, sdispls, dt, rbuf, rcount, dt, root, c, r)
		          : MPI_Scatterv(sbuf, scounts, sdispls, dt, rbuf, rcount, dt, root, c);
	case GOMPI_ALLGATHER:
		return nb ? MPI_Iallgather(sbuf, scount, dt, rbuf, rcount, dt, c, r)
		          : MPI_Allgather(sbuf, scount, dt, rbuf, rcount, dt, c);
	case GOMPI_ALLGATHERV:
		return nb ? MPI_Iallgatherv(sbuf, scount, dt, rbuf, rcounts, rdispls, dt, c, r)
		          : MPI_Allgatherv(sbuf, scount, dt, rbuf, rcounts, rdispls, dt, c);
	case GOMPI_ALLTOALL:
		return nb ? MPI_Ialltoall(sbuf, scount, dt, rbuf, rcount, dt, c, r)
		          : MPI_Alltoall(sbuf, scount, dt, rbuf, rcount, dt, c);
	case GOMPI_ALLTOALLV:
		return nb ? MPI_Ialltoallv(sbuf, scounts, sdispls, dt, rbuf, rcounts, rdispls, dt, c, r)
		          : MPI_Alltoallv(sbuf, scounts, sdispls, dt, rbuf, rcounts, rdispls, dt, c);
	case GOMPI_ALLTOALLW:
		return nb ? MPI_Ialltoallw(sbuf, scounts, sdispls, types, rbuf, rcounts, rdispls, types, c, r)
		          : MPI_Alltoallw(sbuf, scounts, sdispls, types, rbuf, rcounts, rdispls, types, c);
	case GOMPI_REDUCE_SCATTER:
		return nb ? MPI_Ireduce_scatter(sbuf, rbuf, rcounts, dt, op, c, r)
		          : MPI_Reduce_scatter(sbuf, rbuf, rcounts, dt, op, c);
	case GOMPI_REDUCE_SCATTER_BLOCK:
		return nb ? MPI_Ireduce_scatter_block(sbuf, rbuf, rcount, dt, op, c, r)
		          : MPI_Reduce_scatter_block(sbuf, rbuf, rcount, dt, op, c);
	case GOMPI_SCAN: return nb ? MPI_Iscan(sbuf, rbuf, rcount, dt, op, c, r) : MPI_Scan(sbuf, rbuf, rcount, dt, op, c);
	case GOMPI_EXSCAN:
		return nb ? MPI_Iexscan(sbuf, rbuf, rcount, dt, op, c, r) : MPI_Exscan(sbuf, rbuf, rcount, dt, op, c);
	}
	return MPI_ERR_ARG;
}

gompi_req gompi_coll(int which, int nb, int inplace, const char *sbuf, char *rbuf, int scount,
                     int rcount, const int *scounts, const int *sdispls, const int *rcounts,
                     const int *rdispls, uintptr_t types, gompi_h dt, gompi_h op, int root,
                     gompi_h c) {
	gompi_req r = {0, (gompi_h)MPI_REQUEST_NULL};
	MPI_Request q = MPI_REQUEST_NULL;
	const void *s = inplace == GOMPI_INPLACE_SEND ? MPI_IN_PLACE : (const void *)sbuf;
	void *d = inplace == GOMPI_INPLACE_RECV ? MPI_IN_PLACE : (void *)rbuf;
	if (serial && !nb) {
		pthread_mutex_lock(&big);
		r.err = coll(which, 1, s, d, scount, rcount, scounts, sdispls, rcounts, rdispls, (MPI_Datatype *)types,
		             DTYPE(dt), OP(op), root, COMM(c), &q);
		pthread_mutex_unlock(&big);
		if (r.err == MPI_SUCCESS) r.err = finish(&q, MPI_STATUS_IGNORE);
		return r;
	}
	LOCK();
	r.err = coll(which, nb, s, d, scount, rcount, scounts, sdispls, rcounts, rdispls, (MPI_Datatype *)types,
	             DTYPE(dt), OP(op), root, COMM(c), &q);
	UNLOCK();
	r.req = (gompi_h)q;
	return r;
}

void *gompi_arrays(int n, int types) {
	size_t size = 4 * (size_t)n * sizeof(int);
	size = (size + sizeof(MPI_Datatype) - 1) / sizeof(MPI_Datatype) * sizeof(MPI_Datatype);
	void *p = malloc(size + (types ? (size_t)n * sizeof(MPI_Datatype) : 0) + 1);
	if (types) {
		MPI_Datatype *t = (MPI_Datatype *)((char *)p + size);
		for (int i = 0; i < n; i++) t[i] = MPI_BYTE;
	}
	return p;
}

uintptr_t gompi_arrays_types(void *arrays, int n) {
	size_t size = 4 * (size_t)n * sizeof(int);
	size = (size + sizeof(MPI_Datatype) - 1) / sizeof(MPI_Datatype) * sizeof(MPI_Datatype);
	return (uintptr_t)((char *)arrays + size);
}

/* Element kinds of predefined operators, in the order of reflect.Kind's
 * numeric kinds (see kindIndex in coll.go). */
gompi_h gompi_type(int kind) {
	switch (kind) {
	case 1: return (gompi_h)MPI_INT8_T;
	case 2: return (gompi_h)MPI_INT16_T;
	case 3: return (gompi_h)MPI_INT32_T;
	case 4: return (gompi_h)MPI_INT64_T;
	case 5: return (gompi_h)MPI_UINT8_T;
	case 6: return (gompi_h)MPI_UINT16_T;
	case 7: return (gompi_h)MPI_UINT32_T;
	case 8: return (gompi_h)MPI_UINT64_T;
	case 9: return (gompi_h)MPI_FLOAT;
	case 10: return (gompi_h)MPI_DOUBLE;
	case 11: return (gompi_h)MPI_C_FLOAT_COMPLEX;
	case 12: return (gompi_h)MPI_C_DOUBLE_COMPLEX;
	}
	return (gompi_h)MPI_DATATYPE_NULL;
}

/* Predefined operators, in the order of opNames in coll.go. */
gompi_h gompi_op(int which) {
	switch (which) {
	case 0: return (gompi_h)MPI_SUM;
	case 1: return (gompi_h)MPI_PROD;
	case 2: return (gompi_h)MPI_MIN;
	case 3: return (gompi_h)MPI_MAX;
	case 4: return (gompi_h)MPI_LAND;
	case 5: return (gompi_h)MPI_LOR;
	case 6: return (gompi_h)MPI_LXOR;
	case 7: return (gompi_h)MPI_BAND;
	case 8: return (gompi_h)MPI_BOR;
	case 9: return (gompi_h)MPI_BXOR;
	}
	return (gompi_h)MPI_OP_NULL;
}

gompi_h gompi_type_byte(void) { return (gompi_h)MPI_BYTE; }

gompi_type_result gompi_type_contiguous(int n) {
	gompi_type_result r = {0, (gompi_h)MPI_DATATYPE_NULL};
	MPI_Datatype t = MPI_DATATYPE_NULL;
	LOCK();
	r.err = MPI_Type_contiguous(n, MPI_BYTE, &t);
	if (r.err == MPI_SUCCESS) r.err = MPI_Type_commit(&t);
	UNLOCK();
	r.type = (gompi_h)t;
	return r;
}

int gompi_type_free(gompi_h t) {
	MPI_Datatype d = DTYPE(t);
	LOCK();
	int err = MPI_Type_free(&d);
	UNLOCK();
	return err;
}

/* The key of a datatype in gompiUserOp's table: its handle, as user_fn sees it. */
uintptr_t gompi_type_key(gompi_h t) { return t; }

/* The user operators: one commutative, one not. Both hand the vectors to Go
 * (gompiUserOp in userop.go), which finds the operator by the datatype: each
 * call with a user operator gets a datatype of its own. */
extern void gompiUserOp(void *in, void *inout, int n, uintptr_t key);

static void user_fn(void *in, void *inout, int *len, MPI_Datatype *dt) {
	gompiUserOp(in, inout, *len, (uintptr_t)*dt);
}

gompi_h gompi_user_op(int commutative) {
	MPI_Op op = MPI_OP_NULL;
	LOCK();
	MPI_Op_create(user_fn, commutative, &op);
	UNLOCK();
	return (gompi_h)op;
}

int gompi_error_class(int code) {
	int class = MPI_ERR_UNKNOWN;
	if (MPI_Error_class(code, &class) != MPI_SUCCESS) return GOMPI_EC_INTERNAL;
	switch (class) {
	case MPI_ERR_TRUNCATE: return GOMPI_EC_TRUNCATE;
	case MPI_ERR_RANK: return GOMPI_EC_RANK;
	case MPI_ERR_TAG: return GOMPI_EC_TAG;
	case MPI_ERR_COMM: return GOMPI_EC_COMM;
	case MPI_ERR_REQUEST: return GOMPI_EC_REQUEST;
	case MPI_ERR_BUFFER:
	case MPI_ERR_COUNT:
	case MPI_ERR_TYPE:
	case MPI_ERR_OP:
	case MPI_ERR_ROOT:
	case MPI_ERR_GROUP:
	case MPI_ERR_ARG:
	case MPI_ERR_DIMS: return GOMPI_EC_ARG;
	case MPI_ERR_UNSUPPORTED_OPERATION: return GOMPI_EC_NOT_SUPPORTED;
	case MPI_ERR_WIN:
	case MPI_ERR_RMA_FLAVOR:
	case MPI_ERR_RMA_SHARED:
	case MPI_ERR_RMA_ATTACH: return GOMPI_EC_WIN;
	case MPI_ERR_RMA_RANGE: return GOMPI_EC_RMA_RANGE;
	case MPI_ERR_RMA_SYNC:
	case MPI_ERR_RMA_CONFLICT: return GOMPI_EC_RMA_SYNC;
#ifdef MPIX_ERR_PROC_FAILED
	case MPIX_ERR_PROC_FAILED: return GOMPI_EC_PEER_LOST;
#endif
#ifdef MPI_ERR_PROC_FAILED
	case MPI_ERR_PROC_FAILED: return GOMPI_EC_PEER_LOST;
#endif
	}
	return GOMPI_EC_INTERNAL;
}

int gompi_error_string(int code, char *buf, int len) {
	char s[MPI_MAX_ERROR_STRING];
	int n = 0;
	if (MPI_Error_string(code, s, &n) != MPI_SUCCESS) return 0;
	if (n >= len) n = len - 1;
	memcpy(buf, s, n);
	buf[n] = 0;
	return n;
}

double gompi_wtime(void) { return MPI_Wtime(); }
double gompi_wtick(void) { return MPI_Wtick(); }
