/* det-manual.c - hand-written gradient of det.h's objective: the reverse
 * of the cofactor recursion.  The forward sweep stores every minor's value
 * in call order; the reverse sweep walks the same call tree, giving each
 * entry its signed minor times the adjoint flowing in and passing on the
 * adjoint scaled by that entry.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "bench.h"
#include "det.h"
#include <string.h>

static double minor_forward(const double *a, int n, int row, unsigned used,
                            double *tape, long *k) {
  long me = (*k)++;
  double s = 0, sign = 1;
  if (row == n - 1) {
    int c = 0;
    while (used >> c & 1)
      c++;
    s = a[row * n + c];
  } else {
    for (int c = 0; c < n; c++)
      if (!(used >> c & 1)) {
        s += sign * a[row * n + c] *
             minor_forward(a, n, row + 1, used | 1u << c, tape, k);
        sign = -sign;
      }
  }
  return tape[me] = s;
}

static void minor_reverse(const double *a, int n, int row, unsigned used,
                          double adj, const double *tape, long *k, double *g) {
  ++*k;
  if (row == n - 1) {
    int c = 0;
    while (used >> c & 1)
      c++;
    g[row * n + c] += adj;
    return;
  }
  double sign = 1;
  for (int c = 0; c < n; c++)
    if (!(used >> c & 1)) {
      g[row * n + c] += sign * adj * tape[*k]; /* the child's value */
      minor_reverse(a, n, row + 1, used | 1u << c, sign * adj * a[row * n + c],
                    tape, k, g);
      sign = -sign;
    }
}

static void det_grad_manual(const double *a, const void *data, double *g,
                            int np) {
  int n = ((const DetData *)data)->n;
  long nodes = 0, perm = 1, k = 0;
  for (int i = n; i >= 1; i--) /* n!/(n-i)! partial permutations */
    nodes += (perm *= i);
  double *tape = zy_alloc_doubles(nodes + 1);
  memset(g, 0, sizeof(double) * np);
  minor_forward(a, n, 0, 0, tape, &k);
  k = 0;
  minor_reverse(a, n, 0, 0, 1, tape, &k, g);
  free(tape);
}

const ZybTool zyb_tool_manual = {"manual", det_grad_manual};
