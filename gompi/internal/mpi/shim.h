//go:build mpi || mpich

/*
 * shim.h: the C side of the cgo backend. Every operation is one C function,
 * so that one Go call crosses into C once; results come back by value, so
 * that no Go memory is handed to C for them.
 */
#ifndef GOMPI_SHIM_H
#define GOMPI_SHIM_H

#include <mpi.h>
#include <stdint.h>

/* Handles cross into Go as integers: Open MPI's are C pointers, and cgo
 * would check every pointer argument at run time (is it Go memory?), while
 * handles never are. */
typedef uintptr_t gompi_h;
#define COMM(h) ((MPI_Comm)(h))
#define DTYPE(h) ((MPI_Datatype)(h))
#define OP(h) ((MPI_Op)(h))
#define REQ(h) ((MPI_Request)(h))

/* The outcome of a receive, probe or wait. */
typedef struct {
	int err;       /* MPI error code, MPI_SUCCESS (0) if none */
	int source;    /* MPI_SOURCE */
	int tag;       /* MPI_TAG */
	int count;     /* bytes (MPI_Get_count with MPI_BYTE) */
	int cancelled; /* MPI_Test_cancelled */
	int flag;      /* Test, Iprobe: whether it completed / matched */
} gompi_status;

/* The outcome of a call that makes a request. */
typedef struct {
	int err;
	gompi_h req;
} gompi_req;

/* The outcome of a call that makes a communicator. */
typedef struct {
	int err;
	gompi_h comm;
} gompi_comm;

/* The outcome of a call that makes a datatype. */
typedef struct {
	int err;
	gompi_h type;
} gompi_type_result;

/* The outcome of a matched probe: the message's envelope and size, and the
 * handle that receives it (MPI_Message). */
typedef struct {
	int err;
	int flag;   /* Improbe: whether a message matched */
	int source; /* MPI_SOURCE */
	int tag;    /* MPI_TAG */
	int count;  /* bytes in the message */
	gompi_h msg;
} gompi_mprobe_result;

/* What MPI_Init_thread gave. */
typedef struct {
	int err;
	int provided;
	int serialized; /* 1: calls are serialized by a lock (provided < MULTIPLE) */
	long tag_ub;
} gompi_init_result;

/* gompi's wildcards (package base): Open MPI's values, which other libraries
 * need not share (MPICH swaps MPI_ANY_SOURCE and MPI_PROC_NULL). The shim
 * translates them going in (SRC, TAG) and coming out (fill). */
#define GOMPI_ANY_SOURCE (-1)
#define GOMPI_PROC_NULL (-2)
#define GOMPI_ANY_TAG (-1)
#define SRC(r) ((r) == GOMPI_ANY_SOURCE ? MPI_ANY_SOURCE : (r) == GOMPI_PROC_NULL ? MPI_PROC_NULL : (r))
#define TAG(t) ((t) == GOMPI_ANY_TAG ? MPI_ANY_TAG : (t))

/* Error classes as gompi knows them (see errclass in mpi.go). */
enum {
	GOMPI_EC_INTERNAL, GOMPI_EC_TRUNCATE, GOMPI_EC_RANK, GOMPI_EC_TAG, GOMPI_EC_COMM,
	GOMPI_EC_ARG, GOMPI_EC_REQUEST, GOMPI_EC_NOT_SUPPORTED, GOMPI_EC_PEER_LOST,
	GOMPI_EC_WIN, GOMPI_EC_RMA_RANGE, GOMPI_EC_RMA_SYNC
};

/* Send modes, as core's. */
enum { GOMPI_MODE_STANDARD, GOMPI_MODE_SYNC, GOMPI_MODE_READY };

/* Collective operations, in the order of the table in coll.go. */
enum {
	GOMPI_BARRIER, GOMPI_BCAST, GOMPI_REDUCE, GOMPI_ALLREDUCE, GOMPI_GATHER, GOMPI_GATHERV,
	GOMPI_SCATTER, GOMPI_SCATTERV, GOMPI_ALLGATHER, GOMPI_ALLGATHERV, GOMPI_ALLTOALL,
	GOMPI_ALLTOALLV, GOMPI_ALLTOALLW, GOMPI_REDUCE_SCATTER, GOMPI_REDUCE_SCATTER_BLOCK,
	GOMPI_SCAN, GOMPI_EXSCAN
};

/* In-place markers of gompi_coll. */
enum { GOMPI_INPLACE_NONE, GOMPI_INPLACE_SEND, GOMPI_INPLACE_RECV };

gompi_init_result gompi_init(int force_serial);
int gompi_finalize(void);
void gompi_abort(int code);
int gompi_serialized(void);

gompi_h gompi_comm_world(void);
gompi_h gompi_comm_null(void);
int gompi_comm_rank(gompi_h c);
int gompi_comm_size(gompi_h c);
gompi_comm gompi_comm_dup(gompi_h c, const char *name);
gompi_comm gompi_comm_split(gompi_h c, int color, int key, const char *name);
int gompi_comm_free(gompi_h c);
int gompi_translate_ranks(gompi_h c, int n, int *world);
gompi_comm gompi_comm_create_group(gompi_h c, int n, const int *ranks, int tag, const char *name);
gompi_comm gompi_comm_shared(gompi_h c);
int gompi_processor_name(char *buf, int len);
int gompi_allgather_names(const char *mine, char *all, int len);

int gompi_send(const char *buf, int n, int dest, int tag, int mode, gompi_h c);
gompi_req gompi_isend(const char *buf, int n, int dest, int tag, int mode, gompi_h c);
gompi_req gompi_send_init(const char *buf, int n, int dest, int tag, int mode, gompi_h c);
int gompi_start(gompi_h *r);
gompi_status gompi_wait(gompi_h *r);
gompi_status gompi_test(gompi_h *r);
int gompi_cancel(gompi_h *r);
int gompi_request_free(gompi_h *r);
gompi_status gompi_probe(int src, int tag, gompi_h c);
gompi_mprobe_result gompi_improbe(int src, int tag, gompi_h c);
gompi_mprobe_result gompi_mprobe(int src, int tag, gompi_h c);
gompi_status gompi_recv_probed(char *buf, int n, int src, int tag, gompi_h c);
gompi_status gompi_mrecv(char *buf, int n, int count, gompi_h *msg);
gompi_req gompi_imrecv(char *buf, int count, gompi_h *msg);

/* The outcome of gompi_improbe_recv: the probe's, then, if the message fit
 * and was received, its request (MPI_REQUEST_NULL once complete) and, if
 * it completed in the call, its status (st.flag set). */
typedef struct {
	gompi_mprobe_result probe;
	int received;
	gompi_h req;
	gompi_status st;
} gompi_probe_recv_result;
gompi_probe_recv_result gompi_improbe_recv(int src, int tag, gompi_h c, char *buf, int n);
gompi_status gompi_iprobe(int src, int tag, gompi_h c);

gompi_req gompi_coll(int which, int nonblocking, int inplace, const char *sbuf, char *rbuf, int scount,
                     int rcount, const int *scounts, const int *sdispls, const int *rcounts,
                     const int *rdispls, uintptr_t types, gompi_h dt, gompi_h op, int root,
                     gompi_h c);

/* arrays returns C memory for 4n ints (counts and displacements of a
 * vector collective) followed, if types, by n MPI_Datatypes set to
 * MPI_BYTE, whose address arrays_types gives; free it with free(). */
void *gompi_arrays(int n, int types);
uintptr_t gompi_arrays_types(void *arrays, int n);

/* Datatypes and operators. */
gompi_h gompi_type(int kind);
gompi_h gompi_op(int which);
gompi_h gompi_type_byte(void);
gompi_type_result gompi_type_contiguous(int n);
int gompi_type_free(gompi_h t);
uintptr_t gompi_type_key(gompi_h t);
gompi_h gompi_user_op(int commutative);

int gompi_error_class(int code);
int gompi_error_string(int code, char *buf, int len);

void gompi_big_lock(void);
void gompi_big_unlock(void);

/* Windows (shim_win.c). */
typedef struct {
	int err;
	gompi_h win;
	void *base; /* the memory MPI allocated (Win_allocate, Win_allocate_shared) */
} gompi_win_result;

typedef struct {
	int err;
	void *base;
	long size; /* bytes */
} gompi_shared_query_result;

/* Operations of gompi_win_op. */
enum {
	GOMPI_RMA_PUT, GOMPI_RMA_GET, GOMPI_RMA_ACC, GOMPI_RMA_GET_ACC, GOMPI_RMA_FOP, GOMPI_RMA_CAS
};
/* Synchronizations of gompi_win_sync. */
enum {
	GOMPI_WIN_FENCE, GOMPI_WIN_LOCK, GOMPI_WIN_UNLOCK, GOMPI_WIN_LOCK_ALL, GOMPI_WIN_UNLOCK_ALL,
	GOMPI_WIN_FLUSH, GOMPI_WIN_FLUSH_ALL, GOMPI_WIN_FLUSH_LOCAL, GOMPI_WIN_FLUSH_LOCAL_ALL, GOMPI_WIN_SYNC,
	GOMPI_WIN_COMPLETE, GOMPI_WIN_WAIT, GOMPI_WIN_TEST, GOMPI_WIN_FREE
};

gompi_win_result gompi_win_create(char *base, long size, int unit, gompi_h c);
gompi_win_result gompi_win_allocate(long size, int unit, int shared, gompi_h c);
gompi_win_result gompi_win_create_dynamic(gompi_h c);
gompi_shared_query_result gompi_win_shared_query(gompi_h w, int rank);
int gompi_win_attach(gompi_h w, char *base, long size);
int gompi_win_detach(gompi_h w, char *base);
gompi_h gompi_op_rma(int which);
gompi_h gompi_type_bool(void);
/* One operation; with request, its request form (Rput...), whose handle
 * goes to *req. */
int gompi_win_op(int which, const char *origin, const char *compare, char *result, int count, gompi_h dt,
                 int target, long disp, gompi_h op, gompi_h w, int request, gompi_h *req);
/* One synchronization; arg is the target, the lock type, or the assertion;
 * Test sets *flag. */
int gompi_win_sync(int which, int arg, int target, gompi_h w, int *flag);
int gompi_win_read_locked(gompi_h w, int target, char *buf, int n);
/* Post and Start on the ranks of the window's group listed. */
int gompi_win_post_start(int start, int n, const int *ranks, gompi_h w);

double gompi_wtime(void);
double gompi_wtick(void);

#endif
