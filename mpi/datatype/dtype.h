/* SPDX-License-Identifier: MIT */
/*
 * mpi/datatype/dtype.h: the datatype engine's interface inside the MPI core.
 *
 * Every datatype, predefined or derived, is described to the engine by a
 * struct michi_dt_info: its size, bounds, elements and flattened runs
 * (struct michi_dt_run, mpiimpl.h). Point-to-point and the packing calls
 * move a datatype's data as its packed bytes (the typemap's data in
 * order, without gaps): contiguous types straight from the buffer,
 * others through a staging buffer packed before a send and unpacked when
 * a receive completes (mpi/pt2pt/pt2pt_dt.c).
 */
#ifndef MICHI_DTYPE_H
#define MICHI_DTYPE_H

#include "mpiimpl.h"

struct michi_dt_info {
	MPI_Count size;
	MPI_Aint lb, ub, true_lb, true_ub;
	MPI_Count nelem;
	MPI_Datatype elem;
	int align;
	int has_lb, has_ub;
	int contig;
	const struct michi_dt_run *runs;
	size_t nruns;
	const int32_t *blocks;        /* NULL, or the runs as gap and length */
	struct michi_dt_run own[2];   /* runs of a predefined type */
};

/* Fill *info for any valid datatype; 0, or MPI_ERR_TYPE if dt is none. */
int michi_dt_info(MPI_Datatype dt, struct michi_dt_info *info);

/* 0 when dt can be used for communication: predefined, or derived and
 * committed; else MPI_ERR_TYPE. */
int michi_dt_usable(MPI_Datatype dt);
/* 1 for any live datatype handle, committed or not (attributes, names). */
int michi_dt_valid(MPI_Datatype dt);

/* Packed bytes of count instances (count * size). */
static inline size_t michi_dt_packed(MPI_Datatype dt, MPI_Count count)
{
	return (size_t)count * (size_t)michi_dt_size(dt);
}

/* 1 when count instances are count*size bytes at buf + true_lb, so that
 * no staging is needed: *start gets that address. */
int michi_dt_contig_at(const void *buf, MPI_Datatype dt, const void **start);

/*
 * Copy between count instances at buf and packed bytes: michi_dt_pack
 * writes at most max packed bytes into out; michi_dt_unpack reads n
 * packed bytes (the first n of the count instances: a short message
 * unpacks a prefix). Both return the bytes moved.
 */
size_t michi_dt_pack(const void *buf, MPI_Count count, MPI_Datatype dt, void *out, size_t max);
size_t michi_dt_unpack(const void *in, size_t n, void *buf, MPI_Count count, MPI_Datatype dt);

/*
 * A cursor over the packed bytes of count instances, for work done a
 * piece at a time (a pipelined send packs, a streamed receive unpacks):
 * michi_dt_cursor_move copies packed bytes [c->pos, upto) between packed
 * (where the packed bytes start) and buf, and leaves c at upto. Start
 * from a zeroed cursor.
 */
struct michi_dt_cursor {
	size_t pos;        /* packed bytes done */
	MPI_Count k;       /* instance */
	size_t i;          /* run, or block of the compact form */
	MPI_Count j;       /* block within the run */
	size_t a;          /* bytes done of that block */
	char *t;           /* compact form: block i's typed address, or NULL */
};
size_t michi_dt_cursor_move(void *buf, MPI_Count count, MPI_Datatype dt,
			    struct michi_dt_cursor *c, void *packed, size_t upto, int pack);

/* Predefined elements in the first `bytes` packed bytes of dt, or
 * MPI_UNDEFINED when they end inside an element; and the reverse: the
 * packed bytes of the first n elements. */
MPI_Count michi_dt_elements(MPI_Datatype dt, MPI_Count bytes);
MPI_Count michi_dt_element_bytes(MPI_Datatype dt, MPI_Count n);

/* mpi/pt2pt/pt2pt_dt.c: point-to-point with a type that is not predefined and
 * contiguous, after the caller's argument checks and PROC_NULL cases. */
int michi_dt_send_blocking(struct michi_comm *c, const void *buf, MPI_Count count,
			   MPI_Datatype dt, int dest, int tag, int mode, const char *fname);
int michi_dt_recv_blocking(struct michi_comm *c, void *buf, MPI_Count count, MPI_Datatype dt,
			   int source, int tag, MPI_Status *status, const char *fname);
/* Start r (kind and comm set) as a send to or receive from peer_rank
 * (a comm rank, or MPI_ANY_SOURCE), staging through r->stage. */
/* Staging memory: large buffers on huge pages, kept for reuse
 * (mpi/pt2pt/pt2pt_dt.c); michi_stage_free also takes malloc'd ones. */
void *michi_stage_alloc(size_t n);
void michi_stage_free(void *p);

/* Where count instances of dt (not predefined) at buf go on the wire: in
 * place, or a new staging buffer tmp (packed now for a send) that the
 * caller frees with michi_stage_free (unpacking it first after a
 * receive). Returns 0 or an MPI error code (handler called). */
struct michi_stage {
	void *ptr;
	size_t bytes;
	void *tmp;
};
int michi_dt_stage(struct michi_comm *c, const char *fname, void *buf, MPI_Count count,
		   MPI_Datatype dt, int send, struct michi_stage *s);
int michi_dt_istart(struct michi_comm *c, struct michi_request *r, void *buf, MPI_Count count,
		    MPI_Datatype dt, int peer_rank, int tag, int mode, int send,
		    const char *fname);
/* The completion hook that unpacks a staged receive request. */
void (*michi_dt_staged_recv_hook(void))(struct mtmi_req *m);
/* A staged request that the user freed while pending has ended: drop
 * its staging without unpacking. */
void michi_dt_stage_drop(struct michi_request *r);

/* References held by pending operations and by types built on dt
 * (nothing for predefined types). */
void michi_dt_hold(MPI_Datatype dt);
void michi_dt_release(MPI_Datatype dt);

/* mpi/comm/attr.c: a derived type's attributes, copied on MPI_Type_dup and
 * deleted on MPI_Type_free. */
int michi_type_attrs_copy(MPI_Datatype from, MPI_Datatype to);
int michi_type_attrs_free(MPI_Datatype dt);

#endif
