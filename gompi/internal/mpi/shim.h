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
	MPI_Request req;
} gompi_req;

/* The outcome of a call that makes a communicator. */
typedef struct {
	int err;
	MPI_Comm comm;
} gompi_comm;

/* The outcome of a call that makes a datatype. */
typedef struct {
	int err;
	MPI_Datatype type;
} gompi_type_result;

/* What MPI_Init_thread gave. */
typedef struct {
	int err;
	int provided;
	int serialized; /* 1: calls are serialized by a lock (provided < MULTIPLE) */
	long tag_ub;
} gompi_init_result;

/* Error classes as gompi knows them (see errclass in mpi.go). */
enum {
	GOMPI_EC_INTERNAL, GOMPI_EC_TRUNCATE, GOMPI_EC_RANK, GOMPI_EC_TAG, GOMPI_EC_COMM,
	GOMPI_EC_ARG, GOMPI_EC_REQUEST, GOMPI_EC_NOT_SUPPORTED, GOMPI_EC_PEER_LOST
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

MPI_Comm gompi_comm_world(void);
MPI_Comm gompi_comm_null(void);
MPI_Request gompi_request_null(void);
int gompi_comm_rank(MPI_Comm c);
int gompi_comm_size(MPI_Comm c);
gompi_comm gompi_comm_dup(MPI_Comm c, const char *name);
gompi_comm gompi_comm_split(MPI_Comm c, int color, int key, const char *name);
int gompi_comm_free(MPI_Comm c);
int gompi_translate_ranks(MPI_Comm c, int n, int *world);
gompi_comm gompi_comm_shared(MPI_Comm c);
int gompi_processor_name(char *buf, int len);

int gompi_send(const char *buf, int n, int dest, int tag, int mode, MPI_Comm c);
gompi_status gompi_recv(char *buf, int n, int src, int tag, MPI_Comm c);
gompi_req gompi_isend(const char *buf, int n, int dest, int tag, int mode, MPI_Comm c);
gompi_req gompi_irecv(char *buf, int n, int src, int tag, MPI_Comm c);
gompi_req gompi_send_init(const char *buf, int n, int dest, int tag, int mode, MPI_Comm c);
gompi_req gompi_recv_init(char *buf, int n, int src, int tag, MPI_Comm c);
int gompi_start(MPI_Request *r);
gompi_status gompi_wait(MPI_Request *r);
gompi_status gompi_test(MPI_Request *r);
int gompi_cancel(MPI_Request *r);
int gompi_request_free(MPI_Request *r);
gompi_status gompi_probe(int src, int tag, MPI_Comm c);
gompi_status gompi_iprobe(int src, int tag, MPI_Comm c);

gompi_req gompi_coll(int which, int nonblocking, int inplace, const char *sbuf, char *rbuf, int scount,
                     int rcount, const int *scounts, const int *sdispls, const int *rcounts,
                     const int *rdispls, uintptr_t types, MPI_Datatype dt, MPI_Op op, int root,
                     MPI_Comm c);

/* Datatypes and operators. */
MPI_Datatype gompi_type(int kind);
MPI_Op gompi_op(int which);
MPI_Datatype gompi_type_byte(void);
gompi_type_result gompi_type_contiguous(int n);
int gompi_type_free(MPI_Datatype t);
uintptr_t gompi_type_key(MPI_Datatype t);
MPI_Op gompi_user_op(int commutative);

int gompi_error_class(int code);
int gompi_error_string(int code, char *buf, int len);

double gompi_wtime(void);
double gompi_wtick(void);

#endif
