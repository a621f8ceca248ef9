/* typetree.c - the type tree lattice (see typetree.h).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "typetree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int zy_ty_is_float(ZyTy t) { return t >= ZY_TY_HALF && t <= ZY_TY_FP128; }

int zy_ty_size(ZyTy t) {
  switch (t) {
  case ZY_TY_PTR:
    return 8;
  case ZY_TY_HALF:
  case ZY_TY_BFLOAT:
    return 2;
  case ZY_TY_FLOAT:
    return 4;
  case ZY_TY_DOUBLE:
    return 8;
  case ZY_TY_FP80:
  case ZY_TY_FP128:
    return 16;
  default:
    return 0;
  }
}

const char *zy_ty_name(ZyTy t) {
  static const char *const names[] = {
      [ZY_TY_UNKNOWN] = "Unknown",       [ZY_TY_INT] = "Integer",
      [ZY_TY_PTR] = "Pointer",           [ZY_TY_HALF] = "Float@half",
      [ZY_TY_BFLOAT] = "Float@bfloat",   [ZY_TY_FLOAT] = "Float@float",
      [ZY_TY_DOUBLE] = "Float@double",   [ZY_TY_FP80] = "Float@x86_fp80",
      [ZY_TY_FP128] = "Float@fp128",     [ZY_TY_ANYTHING] = "Anything",
  };
  return names[t];
}

static ZyTy join(ZyTy a, ZyTy b) {
  if (a == b || b == ZY_TY_UNKNOWN)
    return a;
  if (a == ZY_TY_UNKNOWN)
    return b;
  return ZY_TY_ANYTHING;
}

static int cmp_path(const long long *a, int alen, const long long *b,
                    int blen) {
  for (int i = 0; i < alen && i < blen; i++)
    if (a[i] != b[i])
      return a[i] < b[i] ? -1 : 1;
  return alen - blen;
}

static unsigned long long insertions;

unsigned long long zy_tt_insertions(void) { return insertions; }

int zy_tt_insert(ZyTT *t, const long long *path, int len, ZyTy ty) {
  if (ty == ZY_TY_UNKNOWN || len < 1 || len > ZY_TT_DEPTH)
    return 0;
  /* Offsets are bounded: recursion through pointer arithmetic would
   * otherwise grow them without end. */
  for (int k = 0; k < len; k++)
    if (path[k] < -4096 || path[k] > 4096)
      return 0;
  size_t lo = 0, hi = t->n;
  /* Trees are mostly built in path order: appending needs no search. */
  if (t->n && cmp_path(t->e[t->n - 1].path, t->e[t->n - 1].len, path, len) < 0)
    lo = hi;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = cmp_path(t->e[mid].path, t->e[mid].len, path, len);
    if (c == 0) {
      ZyTy j = join(t->e[mid].ty, ty);
      if (j == t->e[mid].ty)
        return 0;
      t->e[mid].ty = j;
      t->gen++;
      return 1;
    }
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (t->n == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 4;
    t->e = realloc(t->e, t->cap * sizeof *t->e);
    if (!t->e)
      abort();
  }
  memmove(t->e + lo + 1, t->e + lo, (t->n - lo) * sizeof *t->e);
  ZyTTEntry *e = &t->e[lo];
  memset(e, 0, sizeof *e);
  e->len = len;
  memcpy(e->path, path, len * sizeof *path);
  e->ty = ty;
  t->n++;
  t->gen++;
  insertions++;
  return 1;
}

/* Both trees are sorted by path with one entry per path (every entry was
 * checked by zy_tt_insert): one walk over both finds whether `dst`
 * changes, a second joins types in place or merges into a new array. */
int zy_tt_merge(ZyTT *dst, const ZyTT *src) {
  size_t i = 0, j = 0, extra = 0;
  int joined = 0;
  while (j < src->n) {
    const ZyTTEntry *s = &src->e[j];
    int c = i < dst->n ? cmp_path(dst->e[i].path, dst->e[i].len, s->path,
                                  s->len)
                       : 1;
    if (c < 0) {
      i++;
    } else if (c > 0) {
      extra++, j++;
    } else {
      joined |= join(dst->e[i].ty, s->ty) != dst->e[i].ty;
      i++, j++;
    }
  }
  if (!joined && !extra)
    return 0;
  ZyTTEntry *out = extra ? malloc((dst->n + extra) * sizeof *out) : dst->e;
  if (!out)
    abort();
  size_t k = 0;
  for (i = j = 0; i < dst->n || j < src->n;) {
    int c = i >= dst->n   ? 1
            : j >= src->n ? -1
                          : cmp_path(dst->e[i].path, dst->e[i].len,
                                     src->e[j].path, src->e[j].len);
    if (c < 0) {
      out[k++] = dst->e[i++];
    } else if (c > 0) {
      out[k++] = src->e[j++];
    } else {
      out[k] = dst->e[i++];
      out[k].ty = join(out[k].ty, src->e[j++].ty);
      k++;
    }
  }
  if (extra) {
    free(dst->e);
    dst->e = out;
    dst->cap = k;
  }
  insertions += extra;
  dst->n = k;
  dst->gen++;
  return 1;
}

ZyTy zy_tt_get(const ZyTT *t, const long long *path, int len) {
  ZyTy r = ZY_TY_UNKNOWN;
  for (size_t i = 0; i < t->n; i++) {
    const ZyTTEntry *e = &t->e[i];
    if (e->len != len)
      continue;
    int match = 1;
    for (int k = 0; k < len && match; k++)
      match = e->path[k] == path[k] || e->path[k] == -1;
    if (match)
      r = join(r, e->ty);
  }
  return r;
}

void zy_tt_pointee(const ZyTT *t, long long off, ZyTT *out) {
  for (size_t i = 0; i < t->n; i++) {
    const ZyTTEntry *e = &t->e[i];
    if (e->len >= 2 && (e->path[0] == off || e->path[0] == -1))
      zy_tt_insert(out, e->path + 1, e->len - 1, e->ty);
  }
}

void zy_tt_behind(const ZyTT *t, long long off, ZyTT *out) {
  for (size_t i = 0; i < t->n; i++) {
    const ZyTTEntry *e = &t->e[i];
    long long p[ZY_TT_DEPTH];
    if (e->len + 1 > ZY_TT_DEPTH)
      continue;
    p[0] = off;
    memcpy(p + 1, e->path, e->len * sizeof *p);
    zy_tt_insert(out, p, e->len + 1, e->ty);
  }
}

void zy_tt_shift(const ZyTT *t, long long delta, long long lo, long long hi,
                 ZyTT *out) {
  for (size_t i = 0; i < t->n; i++) {
    const ZyTTEntry *e = &t->e[i];
    long long p[ZY_TT_DEPTH];
    memcpy(p, e->path, e->len * sizeof *p);
    if (p[0] != -1) {
      p[0] += delta;
      if (p[0] < lo || (hi >= 0 && p[0] >= hi))
        continue;
    }
    zy_tt_insert(out, p, e->len, e->ty);
  }
}

void zy_tt_modulo(const ZyTT *t, long long stride, ZyTT *out) {
  ZyTT folded = {0};
  for (size_t i = 0; i < t->n; i++) {
    const ZyTTEntry *e = &t->e[i];
    long long p[ZY_TT_DEPTH];
    memcpy(p, e->path, e->len * sizeof *p);
    if (p[0] != -1 && stride > 0)
      p[0] = ((p[0] % stride) + stride) % stride;
    zy_tt_insert(&folded, p, e->len, e->ty);
  }
  /* Facts from outside the strided array (other members of a struct)
   * fold onto the elements too; where they disagree, the fold says
   * nothing rather than Anything. */
  for (size_t i = 0; i < folded.n; i++) {
    const ZyTTEntry *e = &folded.e[i];
    int keep = e->ty != ZY_TY_ANYTHING;
    for (size_t k = 0; k < t->n && !keep; k++)
      keep = t->e[k].ty == ZY_TY_ANYTHING;
    if (keep)
      zy_tt_insert(out, e->path, e->len, e->ty);
  }
  zy_tt_free(&folded);
}

void zy_tt_as_scalar(const ZyTT *t, long long size, ZyTT *out) {
  ZyTT fit = {0};
  /* A narrower load of a wider float is not that float. */
  for (size_t i = 0; i < t->n; i++) {
    const ZyTTEntry *e = &t->e[i];
    if (e->len == 1 && e->path[0] >= 0 && zy_ty_size(e->ty) &&
        e->path[0] + zy_ty_size(e->ty) > size)
      continue;
    zy_tt_insert(&fit, e->path, e->len, e->ty);
  }
  zy_tt_shift(&fit, 0, 0, size, out);
  zy_tt_free(&fit);
  for (size_t i = 0; i < out->n; i++)
    if (out->e[i].path[0] != -1) {
      /* Re-insert under -1 (the order changes, so rebuild). */
      ZyTT tmp = {0};
      for (size_t k = 0; k < out->n; k++) {
        ZyTTEntry e = out->e[k];
        e.path[0] = -1;
        zy_tt_insert(&tmp, e.path, e.len, e.ty);
      }
      zy_tt_free(out);
      *out = tmp;
      return;
    }
}

void zy_tt_as_memory(const ZyTT *t, long long size, ZyTT *out) {
  /* A vector of doubles lands at 0, 8, ...; other scalars at 0. */
  long long whole[1] = {-1};
  long long step = zy_ty_size(zy_tt_get(t, whole, 1));
  if (step <= 0 || step > size)
    step = size > 0 ? size : 1;
  for (size_t i = 0; i < t->n; i++) {
    const ZyTTEntry *e = &t->e[i];
    if (e->path[0] != -1) {
      if (e->path[0] < size)
        zy_tt_insert(out, e->path, e->len, e->ty);
      continue;
    }
    for (long long o = 0; o + step <= size || o == 0; o += step) {
      long long p[ZY_TT_DEPTH];
      memcpy(p, e->path, e->len * sizeof *p);
      p[0] = o;
      zy_tt_insert(out, p, e->len, e->ty);
    }
  }
}

void zy_tt_without(const ZyTT *t, long long lo, long long hi, ZyTT *out) {
  for (size_t i = 0; i < t->n; i++) {
    const ZyTTEntry *e = &t->e[i];
    if (e->path[0] == -1 || e->path[0] < lo || e->path[0] >= hi)
      zy_tt_insert(out, e->path, e->len, e->ty);
  }
}

void zy_tt_drop(ZyTT *t, ZyTy ty) {
  size_t k = 0;
  for (size_t i = 0; i < t->n; i++)
    if (t->e[i].ty != ty)
      t->e[k++] = t->e[i];
  t->gen += k != t->n;
  t->n = k;
}

void zy_tt_clear(ZyTT *t) {
  t->gen += t->n != 0;
  t->n = 0;
}

void zy_tt_free(ZyTT *t) {
  free(t->e);
  memset(t, 0, sizeof *t);
}

char *zy_tt_str(const ZyTT *t) {
  size_t cap = 64 + t->n * 64, n = 0;
  char *s = malloc(cap);
  if (!s)
    abort();
  n += snprintf(s + n, cap - n, "{");
  for (size_t i = 0; i < t->n; i++) {
    const ZyTTEntry *e = &t->e[i];
    n += snprintf(s + n, cap - n, "%s[", i ? ", " : "");
    for (int k = 0; k < e->len; k++)
      n += snprintf(s + n, cap - n, "%s%lld", k ? "," : "", e->path[k]);
    n += snprintf(s + n, cap - n, "]:%s", zy_ty_name(e->ty));
  }
  snprintf(s + n, cap - n, "}");
  return s;
}
