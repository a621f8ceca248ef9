/* mpi_reduce.c - Reduce and Allreduce with MPI_MAX, MPI_MIN and
 * MPI_PROD.  After the call, the forward sweep computes the derivative of
 * each result element with respect to this rank's input element: for MAX
 * and MIN 1 on the rank that won the element (the lowest rank among
 * ties, found with an Allreduce(MIN) of the ranks whose input equals the
 * result) and 0 elsewhere; for PROD the product of the other ranks'
 * inputs (from an Allgather of the inputs, so that zeros are handled).
 * The reverse sweep multiplies the result's total adjoint by it.  Also
 * the reverse of Scan, Exscan and Reduce_scatter_block with MPI_SUM.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "mpi_call.h"

#include "ir/irutil.h"

static LLVMValueRef fwd(ZyMpiCall *c, LLVMValueRef v) {
  LLVMValueRef m = zy_map_get(&c->g->vmap, v);
  return m ? m : v;
}

static LLVMValueRef at(ZyMpiCall *c, LLVMTypeRef t, LLVMValueRef p,
                       LLVMValueRef i) {
  return LLVMBuildGEP2(c->b, t, p, &i, 1, "");
}

/* w[i] = prod over the other ranks q of x_q[i]. */
static void product_of_others(ZyMpiCall *c, LLVMTypeRef ft, LLVMValueRef x,
                              LLVMValueRef w, LLVMValueRef n, LLVMValueRef by,
                              LLVMValueRef comm) {
  LLVMValueRef size = zy_mpi_size(c, comm), rank = zy_mpi_rank(c, comm);
  LLVMValueRef dt = fwd(c, zy_mpi_arg(c, 't', 0));
  LLVMValueRef all = zy_call_malloc(
      c->b, LLVMBuildMul(c->b, by, zy_mpi_i64(c, size), ""), "mpi.all");
  LLVMValueRef a[7] = {x, n, dt, all, n, dt, comm};
  zy_mpi_emit(c, "Allgather", "pihpihh", a);
  ZyMpiLoop l, q;
  zy_mpi_loop_open(c, &l, n);
  LLVMBuildStore(c->b, zy_const_fp(ft, 1), at(c, ft, w, l.i));
  zy_mpi_loop_close(c, &l);
  zy_mpi_loop_open(c, &q, size);
  LLVMValueRef mine =
      LLVMBuildICmp(c->b, LLVMIntEQ, q.i, zy_mpi_i64(c, rank), "");
  zy_mpi_loop_open(c, &l, n);
  LLVMValueRef k = LLVMBuildAdd(
      c->b, LLVMBuildMul(c->b, q.i, zy_mpi_i64(c, n), ""), l.i, "");
  LLVMValueRef v = LLVMBuildLoad2(c->b, ft, at(c, ft, all, k), "");
  v = LLVMBuildSelect(c->b, mine, zy_const_fp(ft, 1), v, "");
  LLVMValueRef wp = at(c, ft, w, l.i);
  LLVMBuildStore(
      c->b, LLVMBuildFMul(c->b, LLVMBuildLoad2(c->b, ft, wp, ""), v, ""), wp);
  zy_mpi_loop_close(c, &l);
  zy_mpi_loop_close(c, &q);
  zy_call_free(c->b, "free", all);
}

/* w[i] = 1 where this rank won element i (x[i] == y[i], lowest rank among
 * ties), else 0. */
/* The type of the elements of `el`: the float, or {float, int} pairs. */
static LLVMTypeRef pair_type(ZyMpiCall *c, ZyMpiElem el) {
  LLVMTypeRef f[2] = {zy_mpi_el_type(c, el), c->i32};
  return LLVMStructTypeInContext(c->ctx, f, 2, 0);
}

static int is_pair(ZyMpiElem el) {
  return el == ZY_MPI_EL_DOUBLE_INT || el == ZY_MPI_EL_FLOAT_INT;
}

/* Bytes of a value (without the index of a pair). */
static unsigned value_size(ZyMpiElem el) {
  return el == ZY_MPI_EL_FLOAT || el == ZY_MPI_EL_FLOAT_INT ? 4 : 8;
}

/* The value (member 0 of a pair) of element i of `p`. */
static LLVMValueRef value_at(ZyMpiCall *c, ZyMpiElem el, LLVMValueRef p,
                             LLVMValueRef i) {
  if (!is_pair(el))
    return at(c, zy_mpi_el_type(c, el), p, i);
  LLVMValueRef e = at(c, pair_type(c, el), p, i);
  return LLVMBuildStructGEP2(c->b, pair_type(c, el), e, 0, "");
}

/* w[i] = 1 where this rank won element i (x[i] == y[i], and for pairs the
 * same index too; the lowest rank among ties), else 0. */
static void winners(ZyMpiCall *c, ZyMpiElem el, LLVMValueRef x, LLVMValueRef y,
                    LLVMValueRef w, LLVMValueRef n, LLVMValueRef comm) {
  LLVMTypeRef ft = zy_mpi_el_type(c, el);
  LLVMValueRef rank = zy_mpi_rank(c, comm);
  LLVMValueRef win = zy_call_malloc(
      c->b,
      LLVMBuildMul(c->b, zy_mpi_i64(c, n), LLVMConstInt(c->i64, 4, 0), ""),
      "mpi.win");
  ZyMpiLoop l;
  zy_mpi_loop_open(c, &l, n);
  LLVMValueRef eq = LLVMBuildFCmp(
      c->b, LLVMRealOEQ, LLVMBuildLoad2(c->b, ft, value_at(c, el, x, l.i), ""),
      LLVMBuildLoad2(c->b, ft, value_at(c, el, y, l.i), ""), "");
  if (is_pair(el)) {
    LLVMTypeRef pt = pair_type(c, el);
    LLVMValueRef ix = LLVMBuildStructGEP2(c->b, pt, at(c, pt, x, l.i), 1, "");
    LLVMValueRef iy = LLVMBuildStructGEP2(c->b, pt, at(c, pt, y, l.i), 1, "");
    eq = LLVMBuildAnd(c->b, eq,
                      LLVMBuildICmp(c->b, LLVMIntEQ,
                                    LLVMBuildLoad2(c->b, c->i32, ix, ""),
                                    LLVMBuildLoad2(c->b, c->i32, iy, ""), ""),
                      "");
  }
  LLVMBuildStore(
      c->b,
      LLVMBuildSelect(c->b, eq, rank, LLVMConstInt(c->i32, 0x7fffffff, 0), ""),
      at(c, c->i32, win, l.i));
  zy_mpi_loop_close(c, &l);
  LLVMValueRef a[6] = {
      LLVMConstIntToPtr(
          LLVMConstInt(c->i64, (unsigned long long)(c->mpich ? -1 : 1), 1),
          c->ptr),
      win,
      n,
      zy_mpi_handle(c, "ompi_mpi_int", 0x4c000405),
      zy_mpi_handle(c, "ompi_mpi_op_min", 0x58000002),
      comm};
  zy_mpi_emit(c, "Allreduce", "ppihhh", a);
  zy_mpi_loop_open(c, &l, n);
  LLVMValueRef mine = LLVMBuildICmp(
      c->b, LLVMIntEQ,
      LLVMBuildLoad2(c->b, c->i32, at(c, c->i32, win, l.i), ""), rank, "");
  LLVMBuildStore(
      c->b,
      LLVMBuildSelect(c->b, mine, zy_const_fp(ft, 1), zy_const_fp(ft, 0), ""),
      at(c, ft, w, l.i));
  zy_mpi_loop_close(c, &l);
  zy_call_free(c->b, "free", win);
}

int zy_mpi_forward_reduce(ZyMpiCall *c) {
  ZyMpiElem el = zy_mpi_elem(zy_mpi_arg(c, 't', 0));
  LLVMTypeRef ft = zy_mpi_el_type(c, el);
  ZyMpiOp op = zy_mpi_op(zy_mpi_arg(c, 'o', 0));
  LLVMValueRef fc = zy_map_get(&c->g->vmap, c->call);
  LLVMValueRef n = fwd(c, zy_mpi_arg(c, 'n', 0));
  LLVMValueRef comm = zy_mpi_comm(c);
  LLVMValueRef by = LLVMBuildMul(
      c->b, zy_mpi_i64(c, n), LLVMConstInt(c->i64, zy_mpi_el_size(el), 0), "");
  LLVMValueRef x = fwd(c, zy_mpi_buffer(c, 0));
  LLVMValueRef rbuf = fwd(c, zy_mpi_buffer(c, 1)), copy = NULL;
  if (zy_mpi_in_place(c, zy_mpi_buffer(c, 0))) {
    /* The input is the receive buffer before the call. */
    LLVMBuilderRef b = c->b;
    c->b = LLVMCreateBuilderInContext(c->ctx);
    LLVMPositionBuilderBefore(c->b, fc);
    LLVMValueRef bytes =
        LLVMBuildMul(c->b, zy_mpi_i64(c, n),
                     LLVMConstInt(c->i64, zy_mpi_el_size(el), 0), "");
    x = copy = zy_call_malloc(c->b, bytes, "mpi.input");
    LLVMBuildMemCpy(c->b, copy, 8, rbuf, 1, bytes);
    LLVMDisposeBuilder(c->b);
    c->b = b;
  }
  LLVMValueRef w =
      zy_call_malloc(c->b,
                     LLVMBuildMul(c->b, zy_mpi_i64(c, n),
                                  LLVMConstInt(c->i64, value_size(el), 0), ""),
                     "mpi.weights");
  if (op == ZY_MPI_PROD) {
    product_of_others(c, ft, x, w, n, by, comm);
  } else {
    LLVMValueRef y = rbuf;
    if (c->row->kind == ZY_MPI_REDUCE) { /* the result on every rank */
      y = zy_call_malloc(c->b, by, "mpi.result");
      LLVMValueRef a[6] = {x,
                           y,
                           n,
                           fwd(c, zy_mpi_arg(c, 't', 0)),
                           fwd(c, zy_mpi_arg(c, 'o', 0)),
                           comm};
      zy_mpi_emit(c, "Allreduce", "ppihhh", a);
    }
    winners(c, el, x, y, w, n, comm);
    if (y != rbuf)
      zy_call_free(c->b, "free", y);
  }
  if (copy)
    zy_call_free(c->b, "free", copy);
  zy_map_put(&c->g->tapes, c->call, w);
  return 0;
}

/* --- Scan, Exscan, Reduce_scatter_block with MPI_SUM (reverse) ---------- */

static LLVMValueRef lk(ZyMpiCall *c, char letter, int nth) {
  return zy_lookup(c->g, zy_mpi_arg(c, letter, nth));
}

static LLVMValueRef shadow_of(ZyMpiCall *c, LLVMValueRef p) {
  if (!p || !zy_activity_shadowed(c->g->act, p))
    return NULL;
  return zy_shadow_lookup(c->g, p);
}

/* Scan: x_r's adjoint is the sum of the result adjoints of ranks >= r,
 * the total (Allreduce) minus those of ranks < r (Exscan).  Exscan: of
 * ranks > r, the total minus Scan (rank 0's result is undefined: its
 * adjoint is dropped). */
int zy_mpi_reverse_scan(ZyMpiCall *c) {
  ZyMpiElem el = zy_mpi_elem(zy_mpi_arg(c, 't', 0));
  LLVMTypeRef ft = zy_mpi_el_type(c, el);
  int ex = c->row->kind == ZY_MPI_EXSCAN;
  LLVMValueRef n = lk(c, 'n', 0), dt = lk(c, 't', 0), comm = zy_mpi_comm(c);
  LLVMValueRef by = LLVMBuildMul(
      c->b, zy_mpi_i64(c, n), LLVMConstInt(c->i64, zy_mpi_el_size(el), 0), "");
  LLVMValueRef zero = LLVMConstInt(c->i64, 0, 0);
  LLVMValueRef rank0 = LLVMBuildICmp(c->b, LLVMIntEQ, zy_mpi_rank(c, comm),
                                     LLVMConstInt(c->i32, 0, 0), "");
  LLVMValueRef ybar = zy_mpi_zeroed(c, by),
               rs = shadow_of(c, zy_mpi_buffer(c, 1));
  if (rs) {
    LLVMBuildMemCpy(c->b, ybar, 8, rs, 1, by);
    LLVMBuildMemSet(c->b, rs, LLVMConstInt(c->i8, 0, 0), by, 1);
  }
  if (ex) /* rank 0's result of Exscan is undefined */
    LLVMBuildMemSet(c->b, ybar, LLVMConstInt(c->i8, 0, 0),
                    LLVMBuildSelect(c->b, rank0, by, zero, ""), 1);
  LLVMValueRef all = zy_mpi_zeroed(c, by), part = zy_mpi_zeroed(c, by);
  LLVMValueRef sum = zy_mpi_handle(c, "ompi_mpi_op_sum", 0x58000003);
  LLVMValueRef a[6] = {ybar, all, n, dt, sum, comm};
  zy_mpi_emit(c, "Allreduce", "ppihhh", a);
  LLVMValueRef b[6] = {ybar, part, n, dt, sum, comm};
  zy_mpi_emit(c, ex ? "Scan" : "Exscan", "ppihhh", b);
  if (!ex) /* rank 0's Exscan result is undefined: nothing before it */
    LLVMBuildMemSet(c->b, part, LLVMConstInt(c->i8, 0, 0),
                    LLVMBuildSelect(c->b, rank0, by, zero, ""), 1);
  ZyMpiLoop l;
  zy_mpi_loop_open(c, &l, n);
  LLVMValueRef p = at(c, ft, all, l.i);
  LLVMBuildStore(
      c->b,
      LLVMBuildFSub(c->b, LLVMBuildLoad2(c->b, ft, p, ""),
                    LLVMBuildLoad2(c->b, ft, at(c, ft, part, l.i), ""), ""),
      p);
  zy_mpi_loop_close(c, &l);
  LLVMValueRef in = zy_mpi_buffer(c, 0);
  if (zy_mpi_in_place(c, in)) /* the input was the receive buffer */
    in = zy_mpi_buffer(c, 1);
  zy_mpi_add_into(c, in, shadow_of(c, in), all, n, el);
  zy_call_free(c->b, "free", ybar);
  zy_call_free(c->b, "free", all);
  zy_call_free(c->b, "free", part);
  return 0;
}

/* Reduce_scatter_block: every rank's block adjoint goes to the same
 * block of every rank's input (Allgather). */
int zy_mpi_reverse_reduce_scatter(ZyMpiCall *c) {
  ZyMpiElem el = zy_mpi_elem(zy_mpi_arg(c, 't', 0));
  LLVMValueRef n = lk(c, 'n', 0), dt = lk(c, 't', 0), comm = zy_mpi_comm(c);
  LLVMValueRef size = zy_mpi_i64(c, zy_mpi_size(c, comm));
  LLVMValueRef es = LLVMConstInt(c->i64, zy_mpi_el_size(el), 0);
  LLVMValueRef by = LLVMBuildMul(c->b, zy_mpi_i64(c, n), es, "");
  LLVMValueRef total = LLVMBuildMul(c->b, zy_mpi_i64(c, n), size, "");
  LLVMValueRef ybar = zy_mpi_zeroed(c, by),
               rs = shadow_of(c, zy_mpi_buffer(c, 1));
  if (rs) {
    LLVMBuildMemCpy(c->b, ybar, 8, rs, 1, by);
    LLVMBuildMemSet(c->b, rs, LLVMConstInt(c->i8, 0, 0), by, 1);
  }
  LLVMValueRef tmp = zy_mpi_zeroed(c, LLVMBuildMul(c->b, total, es, ""));
  LLVMValueRef a[7] = {ybar, n, dt, tmp, n, dt, comm};
  zy_mpi_emit(c, "Allgather", "pihpihh", a);
  LLVMValueRef in = zy_mpi_buffer(c, 0);
  zy_mpi_add_into(c, in, shadow_of(c, in), tmp, total, el);
  zy_call_free(c->b, "free", ybar);
  zy_call_free(c->b, "free", tmp);
  return 0;
}

/* MINLOC/MAXLOC on pairs: the values' adjoints are packed (pairs cannot be
 * summed), summed (Allreduce) or broadcast from the root (Reduce), and
 * added to the values of the input pairs of the rank that won. */
int zy_mpi_reverse_loc(ZyMpiCall *c) {
  ZyMpiElem el = zy_mpi_elem(zy_mpi_arg(c, 't', 0));
  LLVMTypeRef ft = zy_mpi_el_type(c, el);
  int all = c->row->kind == ZY_MPI_ALLREDUCE;
  LLVMValueRef n = lk(c, 'n', 0), comm = zy_mpi_comm(c);
  LLVMValueRef fsize = LLVMConstInt(c->i64, value_size(el), 0);
  LLVMValueRef zero = LLVMConstInt(c->i64, 0, 0);
  LLVMValueRef dt = el == ZY_MPI_EL_FLOAT_INT
                        ? zy_mpi_handle(c, "ompi_mpi_float", 0x4c00040a)
                        : zy_mpi_handle(c, "ompi_mpi_double", 0x4c00080b);
  LLVMValueRef count = zy_mpi_i64(c, n);
  LLVMValueRef root = all ? NULL
                          : LLVMBuildICmp(c->b, LLVMIntEQ, zy_mpi_rank(c, comm),
                                          lk(c, 'R', 0), "");
  LLVMValueRef mine =
      root ? LLVMBuildSelect(c->b, root, count, zero, "") : count;
  LLVMValueRef packed = zy_mpi_zeroed(c, LLVMBuildMul(c->b, count, fsize, ""));
  LLVMValueRef rs = shadow_of(c, zy_mpi_buffer(c, 1));
  if (rs) {
    ZyMpiLoop l;
    zy_mpi_loop_open(c, &l, mine);
    LLVMValueRef v = value_at(c, el, rs, l.i);
    LLVMBuildStore(c->b, LLVMBuildLoad2(c->b, ft, v, ""),
                   at(c, ft, packed, l.i));
    LLVMBuildStore(c->b, zy_const_fp(ft, 0), v);
    zy_mpi_loop_close(c, &l);
  }
  LLVMValueRef tmp = packed;
  if (all) {
    tmp = zy_mpi_zeroed(c, LLVMBuildMul(c->b, count, fsize, ""));
    LLVMValueRef a[6] = {
        packed, tmp, n, dt, zy_mpi_handle(c, "ompi_mpi_op_sum", 0x58000003),
        comm};
    zy_mpi_emit(c, "Allreduce", "ppihhh", a);
  } else {
    LLVMValueRef a[5] = {packed, n, dt, lk(c, 'R', 0), comm};
    zy_mpi_emit(c, "Bcast", "pihih", a);
  }
  LLVMValueRef w = zy_reload(c->g, zy_map_get(&c->g->tapes, c->call),
                             LLVMGetInstructionParent(c->call));
  LLVMValueRef in = zy_mpi_buffer(c, 0);
  if (zy_mpi_in_place(c, in))
    in = zy_mpi_buffer(c, 1);
  LLVMValueRef s = shadow_of(c, in);
  if (s) {
    ZyMpiLoop l;
    zy_mpi_loop_open(c, &l, count);
    LLVMValueRef d =
        LLVMBuildFMul(c->b, LLVMBuildLoad2(c->b, ft, at(c, ft, tmp, l.i), ""),
                      LLVMBuildLoad2(c->b, ft, at(c, ft, w, l.i), ""), "");
    zy_accumulate_shadow(c->g, in, value_at(c, el, s, l.i), d);
    zy_mpi_loop_close(c, &l);
  }
  zy_call_free(c->b, "free", w);
  if (tmp != packed)
    zy_call_free(c->b, "free", tmp);
  zy_call_free(c->b, "free", packed);
  return 0;
}
