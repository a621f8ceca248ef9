/* vec.c - growable arrays and a pointer-keyed hash map.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "vec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n);
  if (!q)
    abort(); /* out of memory: nothing sensible left to do */
  return q;
}

void zy_vec_push(ZyVec *v, void *p) {
  if (v->len == v->cap) {
    v->cap = v->cap ? 2 * v->cap : 8;
    v->data = xrealloc(v->data, v->cap * sizeof *v->data);
  }
  v->data[v->len++] = p;
}

void zy_vec_free(ZyVec *v) {
  free(v->data);
  memset(v, 0, sizeof *v);
}

int zy_vec_contains(const ZyVec *v, const void *p) {
  for (size_t i = 0; i < v->len; i++)
    if (v->data[i] == p)
      return 1;
  return 0;
}

static size_t slot(const ZyMap *m, const void *key) {
  uintptr_t h = (uintptr_t)key;
  h ^= h >> 17;
  h *= 0x9E3779B97F4A7C15u;
  size_t i = (size_t)(h >> 7) & (m->cap - 1);
  while (m->keys[i] && m->keys[i] != key)
    i = (i + 1) & (m->cap - 1);
  return i;
}

static void grow(ZyMap *m) {
  ZyMap old = *m;
  m->cap = old.cap ? 2 * old.cap : 64;
  m->keys = calloc(m->cap, sizeof *m->keys);
  m->vals = calloc(m->cap, sizeof *m->vals);
  if (!m->keys || !m->vals)
    abort();
  for (size_t i = 0; i < old.cap; i++)
    if (old.keys[i]) {
      size_t j = slot(m, old.keys[i]);
      m->keys[j] = old.keys[i];
      m->vals[j] = old.vals[i];
    }
  free(old.keys);
  free(old.vals);
}

void *zy_map_get(const ZyMap *m, const void *key) {
  if (!m->cap)
    return NULL;
  size_t i = slot(m, key);
  return m->keys[i] ? m->vals[i] : NULL;
}

int zy_map_has(const ZyMap *m, const void *key) {
  return m->cap && m->keys[slot(m, key)] != NULL;
}

void zy_map_put(ZyMap *m, void *key, void *val) {
  if (2 * (m->len + 1) > m->cap)
    grow(m);
  size_t i = slot(m, key);
  if (!m->keys[i]) {
    m->keys[i] = key;
    m->len++;
    zy_vec_push(&m->order, key);
  }
  m->vals[i] = val;
}

void zy_map_free(ZyMap *m) {
  free(m->keys);
  free(m->vals);
  zy_vec_free(&m->order);
  memset(m, 0, sizeof *m);
}
