/* maxflow.h - maximum flow / minimum cut on a small directed graph.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_SUPPORT_MAXFLOW_H
#define ZY_SUPPORT_MAXFLOW_H

#define ZY_FLOW_INF (1LL << 60)

typedef struct ZyFlow ZyFlow;

/* A graph of `nodes` nodes (0 .. nodes-1) without edges. */
ZyFlow *zy_flow_new(int nodes);
/* Adds an edge a -> b of capacity `cap` (ZY_FLOW_INF: uncuttable). */
void zy_flow_edge(ZyFlow *f, int a, int b, long long cap);
/* The maximum flow from s to t; afterwards zy_flow_source_side tells on
 * which side of a minimum cut each node lies. */
long long zy_flow_max(ZyFlow *f, int s, int t);
int zy_flow_source_side(ZyFlow *f, int v);
void zy_flow_free(ZyFlow *f);

#endif
