/* vec.h - growable arrays and a pointer-keyed hash map.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_SUPPORT_VEC_H
#define ZY_SUPPORT_VEC_H

#include <stddef.h>

/* A growable array of pointers.  Zero-initialised is empty. */
typedef struct ZyVec {
  void **data;
  size_t len, cap;
} ZyVec;

void zy_vec_push(ZyVec *v, void *p);
void zy_vec_free(ZyVec *v);
int zy_vec_contains(const ZyVec *v, const void *p);

/* An open-addressing map from non-null pointers to pointers.
 * Zero-initialised is empty.  Iteration order is insertion order, so
 * everything built from a map is deterministic. */
typedef struct ZyMap {
  void **keys, **vals; /* hash slots */
  size_t cap, len;
  ZyVec order; /* keys in insertion order */
} ZyMap;

void *zy_map_get(const ZyMap *m, const void *key);
void zy_map_put(ZyMap *m, void *key, void *val);
int zy_map_has(const ZyMap *m, const void *key);
void zy_map_free(ZyMap *m);

#endif
