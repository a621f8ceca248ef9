/* ode-manual.c - hand-written gradient of ode.h's objective: the discrete
 * adjoint of RK4.  The forward sweep stores the state before each step;
 * the reverse sweep recomputes that step's stages and pulls the adjoint
 * back through them.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "bench.h"
#include "ode.h"
#include <string.h>

/* Reverse of dy = rhs(x, z): adds go's pullback into gx, sets gz. */
static inline void rhs_reverse(int n, const double *x, const double *z,
                               const double *go, double *gx, double *gz) {
  gx[0] += go[0];
  for (int i = 1; i < n; i++) {
    gx[i] += go[i] * z[i - 1];
    gz[i - 1] = go[i] * x[i];
  }
  gz[n - 1] = 0;
}

static void ode_grad_manual(const double *x, const void *data, double *gx,
                            int np) {
  const OdeData *d = (const OdeData *)data;
  int n = d->n, steps = d->steps;
  double h = d->tf / steps;
  double *ys = zy_alloc_doubles((size_t)(steps + 1) * n);
  double *w = zy_alloc_doubles(12 * (size_t)n); /* stages and adjoints */
  double *k1 = w, *k2 = w + n, *k3 = w + 2 * n, *k4 = w + 3 * n;
  double *z2 = w + 4 * n, *z3 = w + 5 * n, *z4 = w + 6 * n;
  double *gy = w + 7 * n, *gyn = w + 8 * n, *gk = w + 9 * n, *gz = w + 10 * n;
  memset(gx, 0, sizeof(double) * np);

  for (int s = 0; s < steps; s++) {
    const double *y = ys + (size_t)s * n;
    double *yn = ys + (size_t)(s + 1) * n;
    ode_rhs(n, x, y, k1);
    for (int i = 0; i < n; i++)
      z2[i] = y[i] + h / 2 * k1[i];
    ode_rhs(n, x, z2, k2);
    for (int i = 0; i < n; i++)
      z3[i] = y[i] + h / 2 * k2[i];
    ode_rhs(n, x, z3, k3);
    for (int i = 0; i < n; i++)
      z4[i] = y[i] + h * k3[i];
    ode_rhs(n, x, z4, k4);
    for (int i = 0; i < n; i++)
      yn[i] = y[i] + h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }

  gy[n - 1] = 1;
  for (int s = steps - 1; s >= 0; s--) {
    const double *y = ys + (size_t)s * n;
    ode_rhs(n, x, y, k1);
    for (int i = 0; i < n; i++)
      z2[i] = y[i] + h / 2 * k1[i];
    ode_rhs(n, x, z2, k2);
    for (int i = 0; i < n; i++)
      z3[i] = y[i] + h / 2 * k2[i];
    ode_rhs(n, x, z3, k3);
    for (int i = 0; i < n; i++)
      z4[i] = y[i] + h * k3[i];
    /* y' = y + h/6 (k1 + 2 k2 + 2 k3 + k4), z4 = y + h k3, ... */
    memcpy(gyn, gy, sizeof(double) * n);
    for (int i = 0; i < n; i++)
      gk[i] = h / 6 * gyn[i];
    rhs_reverse(n, x, z4, gk, gx, gz);
    for (int i = 0; i < n; i++) {
      gy[i] += gz[i];
      gk[i] = h / 3 * gyn[i] + h * gz[i];
    }
    rhs_reverse(n, x, z3, gk, gx, gz);
    for (int i = 0; i < n; i++) {
      gy[i] += gz[i];
      gk[i] = h / 3 * gyn[i] + h / 2 * gz[i];
    }
    rhs_reverse(n, x, z2, gk, gx, gz);
    for (int i = 0; i < n; i++) {
      gy[i] += gz[i];
      gk[i] = h / 6 * gyn[i] + h / 2 * gz[i];
    }
    rhs_reverse(n, x, y, gk, gx, gz);
    for (int i = 0; i < n; i++)
      gy[i] += gz[i];
  }
  free(ys);
  free(w);
}

const ZybTool zyb_tool_manual = {"manual", ode_grad_manual};
