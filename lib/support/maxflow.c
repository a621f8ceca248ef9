/* maxflow.c - maximum flow and minimum cut on small graphs (Dinic's
 * algorithm), for choosing which values the reverse sweep caches.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "maxflow.h"

#include <stdlib.h>

typedef struct ZyEdge {
  int to, next;
  long long cap;
} ZyEdge;

struct ZyFlow {
  int n, nedges, cap_edges;
  int *head, *level, *iter;
  ZyEdge *e;
};

ZyFlow *zy_flow_new(int nodes) {
  ZyFlow *f = calloc(1, sizeof *f);
  f->n = nodes;
  f->head = malloc(sizeof(int) * nodes);
  f->level = malloc(sizeof(int) * nodes);
  f->iter = malloc(sizeof(int) * nodes);
  for (int i = 0; i < nodes; i++)
    f->head[i] = -1;
  return f;
}

static void push_edge(ZyFlow *f, int a, int b, long long cap) {
  if (f->nedges == f->cap_edges) {
    f->cap_edges = f->cap_edges ? 2 * f->cap_edges : 64;
    f->e = realloc(f->e, sizeof(ZyEdge) * f->cap_edges);
  }
  f->e[f->nedges] = (ZyEdge){b, f->head[a], cap};
  f->head[a] = f->nedges++;
}

void zy_flow_edge(ZyFlow *f, int a, int b, long long cap) {
  push_edge(f, a, b, cap); /* edge 2k: forward, 2k+1: its residual */
  push_edge(f, b, a, 0);
}

/* Levels of the residual graph from `s` by breadth-first search. */
static int bfs(ZyFlow *f, int s, int t) {
  int *queue = malloc(sizeof(int) * f->n), qh = 0, qt = 0;
  for (int i = 0; i < f->n; i++)
    f->level[i] = -1;
  f->level[s] = 0;
  queue[qt++] = s;
  while (qh < qt) {
    int v = queue[qh++];
    for (int k = f->head[v]; k >= 0; k = f->e[k].next)
      if (f->e[k].cap > 0 && f->level[f->e[k].to] < 0) {
        f->level[f->e[k].to] = f->level[v] + 1;
        queue[qt++] = f->e[k].to;
      }
  }
  free(queue);
  return f->level[t] >= 0;
}

/* One augmenting path along increasing levels (recursion depth is at
 * most the number of levels). */
static long long dfs(ZyFlow *f, int v, int t, long long pushed) {
  if (v == t)
    return pushed;
  for (; f->iter[v] >= 0; f->iter[v] = f->e[f->iter[v]].next) {
    ZyEdge *e = &f->e[f->iter[v]];
    if (e->cap <= 0 || f->level[e->to] != f->level[v] + 1)
      continue;
    long long d = dfs(f, e->to, t, pushed < e->cap ? pushed : e->cap);
    if (d > 0) {
      e->cap -= d;
      f->e[f->iter[v] ^ 1].cap += d;
      return d;
    }
  }
  return 0;
}

long long zy_flow_max(ZyFlow *f, int s, int t) {
  long long total = 0;
  while (bfs(f, s, t)) {
    for (int i = 0; i < f->n; i++)
      f->iter[i] = f->head[i];
    long long d;
    while ((d = dfs(f, s, t, ZY_FLOW_INF)) > 0)
      total += d;
  }
  bfs(f, s, t); /* leaves the source side of the minimum cut marked */
  return total;
}

int zy_flow_source_side(ZyFlow *f, int v) { return f->level[v] >= 0; }

void zy_flow_free(ZyFlow *f) {
  free(f->head);
  free(f->level);
  free(f->iter);
  free(f->e);
  free(f);
}
