/* mpi_vector.c - the collectives with a count and a displacement per rank
 * (Gatherv, Scatterv, Allgatherv, Alltoallv).  The forward sweep copies
 * the count and displacement arrays after the call (the program may
 * change them before the reverse sweep), kept as the call's tape; the
 * reverse sweep runs the transposed collective on the shadows, zeroes
 * only the parts of the receive shadow the call wrote, and adds the
 * adjoint into the send shadow.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "mpi_call.h"

#include "ir/irutil.h"

static LLVMValueRef fwd(ZyMpiCall *c, LLVMValueRef v) {
  LLVMValueRef m = zy_map_get(&c->g->vmap, v);
  return m ? m : v;
}

static LLVMValueRef lk(ZyMpiCall *c, char letter, int nth) {
  return zy_lookup(c->g, zy_mpi_arg(c, letter, nth));
}

static LLVMValueRef shadow_of(ZyMpiCall *c, LLVMValueRef p) {
  if (!p || !zy_activity_shadowed(c->g->act, p))
    return NULL;
  return zy_shadow_lookup(c->g, p);
}

static LLVMValueRef i64c(ZyMpiCall *c, long long v) {
  return LLVMConstInt(c->i64, (unsigned long long)v, 1);
}

/* Whether the arrays are read on the root only (Gatherv, Scatterv). */
static int rooted(ZyMpiCall *c) { return zy_mpi_index(c->row, 'R', 0) >= 0; }

/* This rank is the root (or the call has none); `get` reads arguments. */
static LLVMValueRef significant(ZyMpiCall *c, LLVMValueRef comm,
                                LLVMValueRef root) {
  if (!root)
    return LLVMConstInt(c->i1, 1, 0);
  return LLVMBuildICmp(c->b, LLVMIntEQ, zy_mpi_rank(c, comm), root, "");
}

int zy_mpi_forward_vector(ZyMpiCall *c) {
  LLVMValueRef comm = fwd(c, zy_mpi_arg(c, 'c', 0));
  LLVMValueRef root = rooted(c) ? fwd(c, zy_mpi_arg(c, 'R', 0)) : NULL;
  LLVMValueRef size = zy_mpi_i64(c, zy_mpi_size(c, comm));
  LLVMValueRef bytes = LLVMBuildMul(c->b, size, i64c(c, 4), "");
  LLVMValueRef n =
      LLVMBuildSelect(c->b, significant(c, comm, root), bytes, i64c(c, 0), "");
  LLVMValueRef block = zy_call_malloc(
      c->b, LLVMBuildMul(c->b, bytes, i64c(c, 4), ""), "mpi.counts");
  for (int k = 0; k < 2; k++) {
    LLVMValueRef cnt = zy_mpi_arg(c, 'N', k), dsp = zy_mpi_arg(c, 'D', k);
    if (!cnt)
      break;
    LLVMValueRef at[2] = {LLVMBuildMul(c->b, bytes, i64c(c, 2 * k), ""),
                          LLVMBuildMul(c->b, bytes, i64c(c, 2 * k + 1), "")};
    LLVMBuildMemCpy(c->b, LLVMBuildGEP2(c->b, c->i8, block, &at[0], 1, ""), 4,
                    fwd(c, cnt), 4, n);
    LLVMBuildMemCpy(c->b, LLVMBuildGEP2(c->b, c->i8, block, &at[1], 1, ""), 4,
                    fwd(c, dsp), 4, n);
  }
  zy_map_put(&c->g->tapes, c->call, block);
  return 0;
}

/* --- Reverse ------------------------------------------------------------ */

typedef struct Arrays {
  LLVMValueRef block, size; /* size: i64 */
  LLVMValueRef cnt[2], dsp[2];
} Arrays;

static void arrays(ZyMpiCall *c, Arrays *a) {
  a->block = zy_reload(c->g, zy_map_get(&c->g->tapes, c->call),
                       LLVMGetInstructionParent(c->call));
  a->size = zy_mpi_i64(c, zy_mpi_size(c, lk(c, 'c', 0)));
  for (int k = 0; k < 4; k++) {
    LLVMValueRef at = LLVMBuildMul(c->b, a->size, i64c(c, k), "");
    LLVMValueRef p = LLVMBuildGEP2(c->b, c->i32, a->block, &at, 1, "");
    if (k % 2)
      a->dsp[k / 2] = p;
    else
      a->cnt[k / 2] = p;
  }
}

static LLVMValueRef load_i64(ZyMpiCall *c, LLVMValueRef arr, LLVMValueRef i) {
  return zy_mpi_i64(
      c, LLVMBuildLoad2(c->b, c->i32,
                        LLVMBuildGEP2(c->b, c->i32, arr, &i, 1, ""), ""));
}

/* mpi_call.h. */
LLVMValueRef zy_mpi_v_extent(ZyMpiCall *c, LLVMValueRef cnt, LLVMValueRef dsp,
                             LLVMValueRef n) {
  LLVMValueRef slot = zy_new_slot(c->g, c->i64, "mpi.extent", 0);
  LLVMBuildStore(c->b, i64c(c, 0), slot);
  ZyMpiLoop l;
  zy_mpi_loop_open(c, &l, n);
  LLVMValueRef e =
      LLVMBuildAdd(c->b, load_i64(c, dsp, l.i), load_i64(c, cnt, l.i), "");
  LLVMValueRef m = LLVMBuildLoad2(c->b, c->i64, slot, "");
  LLVMBuildStore(c->b,
                 LLVMBuildSelect(
                     c->b, LLVMBuildICmp(c->b, LLVMIntSGT, e, m, ""), e, m, ""),
                 slot);
  zy_mpi_loop_close(c, &l);
  return LLVMBuildLoad2(c->b, c->i64, slot, "mpi.extent");
}

static LLVMValueRef elems(ZyMpiCall *c, LLVMValueRef n, ZyMpiElem el) {
  return LLVMBuildMul(c->b, zy_mpi_i64(c, n), i64c(c, zy_mpi_el_size(el)), "");
}

/* Zeroes the parts [displs[q], displs[q] + counts[q]) of shadow `s`, for
 * q < n; with `dst` set, copies them there packed in rank order first. */
static void regions(ZyMpiCall *c, LLVMValueRef s, LLVMValueRef cnt,
                    LLVMValueRef dsp, LLVMValueRef n, ZyMpiElem el,
                    LLVMValueRef dst) {
  LLVMValueRef off = zy_new_slot(c->g, c->i64, "mpi.offset", 0);
  LLVMBuildStore(c->b, i64c(c, 0), off);
  ZyMpiLoop l;
  zy_mpi_loop_open(c, &l, n);
  LLVMValueRef at = elems(c, load_i64(c, dsp, l.i), el);
  LLVMValueRef len = elems(c, load_i64(c, cnt, l.i), el);
  LLVMValueRef p = LLVMBuildGEP2(c->b, c->i8, s, &at, 1, "");
  if (dst) {
    LLVMValueRef o = LLVMBuildLoad2(c->b, c->i64, off, "");
    LLVMBuildMemCpy(c->b, LLVMBuildGEP2(c->b, c->i8, dst, &o, 1, ""), 1, p, 1,
                    len);
    LLVMBuildStore(c->b, LLVMBuildAdd(c->b, o, len, ""), off);
  }
  LLVMBuildMemSet(c->b, p, LLVMConstInt(c->i8, 0, 0), len, 1);
  zy_mpi_loop_close(c, &l);
}

static LLVMValueRef own_or(ZyMpiCall *c, LLVMValueRef s, LLVMValueRef bytes,
                           LLVMValueRef *own) {
  *own = s ? NULL : zy_mpi_zeroed(c, bytes);
  return s ? s : *own;
}

static void finish(ZyMpiCall *c, LLVMValueRef tmp, LLVMValueRef n, ZyMpiElem el,
                   LLVMValueRef own, Arrays *a) {
  LLVMValueRef sbuf = zy_mpi_buffer(c, 0);
  zy_mpi_add_into(c, sbuf, shadow_of(c, sbuf), tmp, n, el);
  zy_call_free(c->b, "free", tmp);
  if (own)
    zy_call_free(c->b, "free", own);
  zy_call_free(c->b, "free", a->block);
}

int zy_mpi_reverse_vector(ZyMpiCall *c) {
  ZyMpiElem el = zy_mpi_elem(zy_mpi_arg(c, 't', 0));
  Arrays a;
  arrays(c, &a);
  LLVMValueRef comm = zy_mpi_comm(c), own, zero = i64c(c, 0);
  LLVMValueRef root = rooted(c) ? lk(c, 'R', 0) : NULL;
  LLVMValueRef nr =
      LLVMBuildSelect(c->b, significant(c, comm, root), a.size, zero, "");
  LLVMValueRef rshadow = shadow_of(c, zy_mpi_buffer(c, 1));
  switch (c->row->kind) {
  case ZY_MPI_GATHERV: { /* the root scatters its receive shadow back */
    LLVMValueRef sn = lk(c, 'n', 0);
    LLVMValueRef rs = own_or(
        c, rshadow, elems(c, zy_mpi_v_extent(c, a.cnt[0], a.dsp[0], nr), el), &own);
    LLVMValueRef tmp = zy_mpi_zeroed(c, elems(c, sn, el));
    LLVMValueRef x[9] = {rs, a.cnt[0],      a.dsp[0], lk(c, 't', 1), tmp,
                         sn, lk(c, 't', 0), root,     comm};
    zy_mpi_emit(c, "Scatterv", "ppphpihih", x);
    regions(c, rs, a.cnt[0], a.dsp[0], nr, el, NULL);
    finish(c, tmp, sn, el, own, &a);
    return 0;
  }
  case ZY_MPI_SCATTERV: { /* the receive shadows are gathered to the root */
    LLVMValueRef rn = lk(c, 'n', 0);
    LLVMValueRef rs = own_or(c, rshadow, elems(c, rn, el), &own);
    LLVMValueRef ext = zy_mpi_v_extent(c, a.cnt[0], a.dsp[0], nr);
    LLVMValueRef tmp = zy_mpi_zeroed(c, elems(c, ext, el));
    LLVMValueRef x[9] = {rs,       rn,       lk(c, 't', 1), tmp,
                         a.cnt[0], a.dsp[0], lk(c, 't', 0), root,
                         comm};
    zy_mpi_emit(c, "Gatherv", "pihppphih", x);
    LLVMBuildMemSet(c->b, rs, LLVMConstInt(c->i8, 0, 0), elems(c, rn, el), 1);
    finish(c, tmp, ext, el, own, &a);
    return 0;
  }
  case ZY_MPI_ALLGATHERV: { /* packed, then Reduce_scatter(SUM) */
    LLVMValueRef sn = lk(c, 'n', 0);
    LLVMValueRef ext = zy_mpi_v_extent(c, a.cnt[0], a.dsp[0], a.size);
    LLVMValueRef rs = own_or(c, rshadow, elems(c, ext, el), &own);
    LLVMValueRef packed = zy_mpi_zeroed(c, elems(c, ext, el));
    regions(c, rs, a.cnt[0], a.dsp[0], a.size, el, packed);
    LLVMValueRef tmp = zy_mpi_zeroed(c, elems(c, sn, el));
    LLVMValueRef x[6] = {packed,
                         tmp,
                         a.cnt[0],
                         lk(c, 't', 1),
                         zy_mpi_handle(c, "ompi_mpi_op_sum", 0x58000003),
                         comm};
    zy_mpi_emit(c, "Reduce_scatter", "ppphhh", x);
    zy_call_free(c->b, "free", packed);
    finish(c, tmp, sn, el, own, &a);
    return 0;
  }
  default: { /* Alltoallv: transposed */
    LLVMValueRef sext = zy_mpi_v_extent(c, a.cnt[0], a.dsp[0], a.size);
    LLVMValueRef rext = zy_mpi_v_extent(c, a.cnt[1], a.dsp[1], a.size);
    LLVMValueRef rs = own_or(c, rshadow, elems(c, rext, el), &own);
    LLVMValueRef tmp = zy_mpi_zeroed(c, elems(c, sext, el));
    LLVMValueRef x[9] = {rs,       a.cnt[1], a.dsp[1],      lk(c, 't', 1), tmp,
                         a.cnt[0], a.dsp[0], lk(c, 't', 0), comm};
    zy_mpi_emit(c, "Alltoallv", "ppphppphh", x);
    regions(c, rs, a.cnt[1], a.dsp[1], a.size, el, NULL);
    finish(c, tmp, sext, el, own, &a);
    return 0;
  }
  }
}
