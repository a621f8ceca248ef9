/* typetree.h - what each byte of a value, and of the memory it points to,
 * holds: a set of (path, type) entries.  A path's first offset is a byte
 * of the value itself (-1: every byte, as for scalars); each further
 * offset is a byte of the memory pointed to by the pointer found there.
 * Example: a double* value is {[-1]:Pointer, [-1,0]:Float@double}.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_ANALYSIS_TYPETREE_H
#define ZY_ANALYSIS_TYPETREE_H

#include <stddef.h>

/* The lattice: Unknown below every concrete type, Anything above (two
 * different concrete types met). */
typedef enum ZyTy {
  ZY_TY_UNKNOWN,
  ZY_TY_INT,
  ZY_TY_PTR,
  ZY_TY_HALF,
  ZY_TY_BFLOAT,
  ZY_TY_FLOAT,
  ZY_TY_DOUBLE,
  ZY_TY_FP80,
  ZY_TY_FP128,
  ZY_TY_ANYTHING,
} ZyTy;

enum { ZY_TT_DEPTH = 4 };

typedef struct ZyTTEntry {
  int len;
  long long path[ZY_TT_DEPTH];
  ZyTy ty;
} ZyTTEntry;

/* Entries sorted by path, at most one per path.  Zero-initialised is
 * empty.  `gen` counts the changes made to the tree (the type analysis
 * tells from it which facts changed since a rule last read them). */
typedef struct ZyTT {
  ZyTTEntry *e;
  size_t n, cap;
  unsigned gen;
} ZyTT;

int zy_ty_is_float(ZyTy t);
/* Size in bytes of a scalar of type t (0 for Unknown/Anything/Int). */
int zy_ty_size(ZyTy t);
const char *zy_ty_name(ZyTy t);

/* Joins `ty` into the entry at `path`; returns 1 if the tree changed.
 * Paths longer than ZY_TT_DEPTH are dropped. */
int zy_tt_insert(ZyTT *t, const long long *path, int len, ZyTy ty);
/* Joins every entry of `src` into `dst`; returns 1 if `dst` changed. */
int zy_tt_merge(ZyTT *dst, const ZyTT *src);
/* The type at `path`, where -1 entries of the tree match any offset. */
ZyTy zy_tt_get(const ZyTT *t, const long long *path, int len);
/* The memory pointed to by the pointer at byte `off` of the value (or by
 * the scalar pointer when off is -1): entries below it, one level up. */
void zy_tt_pointee(const ZyTT *t, long long off, ZyTT *out);
/* `t` one level down, behind a pointer at byte `off` (-1: scalar). */
void zy_tt_behind(const ZyTT *t, long long off, ZyTT *out);
/* First offsets shifted by `delta`, keeping those landing in [lo, hi)
 * (hi < 0: no upper bound); -1 offsets are kept as they are. */
void zy_tt_shift(const ZyTT *t, long long delta, long long lo, long long hi,
                 ZyTT *out);
/* First offsets reduced modulo `stride` (entries of an array element). */
void zy_tt_modulo(const ZyTT *t, long long stride, ZyTT *out);
/* As a scalar of `size` bytes: first offsets in [0, size) become -1. */
void zy_tt_as_scalar(const ZyTT *t, long long size, ZyTT *out);
/* A scalar's tree laid out in memory: -1 first offsets become 0, step,
 * 2*step ... below `size`, step being the entry type's size. */
void zy_tt_as_memory(const ZyTT *t, long long size, ZyTT *out);

/* Entries whose first offset is outside [lo, hi) (-1 entries too). */
void zy_tt_without(const ZyTT *t, long long lo, long long hi, ZyTT *out);
/* Removes the entries of type `ty`. */
void zy_tt_drop(ZyTT *t, ZyTy ty);

void zy_tt_clear(ZyTT *t);
/* Entries inserted into any tree since the process started (statistics:
 * -zymase-print-stats). */
unsigned long long zy_tt_insertions(void);
void zy_tt_free(ZyTT *t);
/* Appends "{[-1]:Pointer, [-1,0]:Float@double}" to a malloc'd string. */
char *zy_tt_str(const ZyTT *t);

#endif
