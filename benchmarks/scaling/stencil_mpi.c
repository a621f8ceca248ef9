/* stencil_mpi.c - the MPI benchmark: a distributed 1-D heat equation with a
 * cubic sink (N cells per rank, halo exchange by MPI_Sendrecv every step,
 * T steps, loss summed by MPI_Allreduce), its gradient with respect to the
 * initial state by Zymase and by a hand-written adjoint (all states kept,
 * halo adjoints sent back by MPI_Sendrecv).  Prints the times on rank 0:
 * primal, Zymase, manual, and the ratios.  Weak scaling: N per rank is
 * fixed, so the work per rank stays the same as ranks are added.
 * Usage: mpirun -np P stencil_mpi [N per rank, 20000] [steps, 40] [reps, 5]
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

static int rank, size, steps;
static const double K = 0.3, C = 0.05;

static void neighbours(int *left, int *right) {
  *left = rank ? rank - 1 : MPI_PROC_NULL;
  *right = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
}

/* The loss of the final state, returned on rank 0 (0 elsewhere: the seed
 * of the gradient is given once). */
double simulate(double *x, int n) {
  int left, right;
  neighbours(&left, &right);
  double *u = malloc((n + 2) * sizeof *u), *v = malloc((n + 2) * sizeof *v);
  u[0] = u[n + 1] = 0;
  for (int i = 0; i < n; i++)
    u[i + 1] = x[i];
  for (int t = 0; t < steps; t++) {
    MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 0, &u[0], 1, MPI_DOUBLE, left, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[n + 1], 1, MPI_DOUBLE, right,
                 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 1; i <= n; i++)
      v[i] =
          u[i] + K * (u[i - 1] - 2 * u[i] + u[i + 1]) - C * u[i] * u[i] * u[i];
    for (int i = 1; i <= n; i++)
      u[i] = v[i];
  }
  double l = 0, all;
  for (int i = 1; i <= n; i++)
    l += u[i] * u[i];
  MPI_Allreduce(&l, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  free(u);
  free(v);
  return rank == 0 ? all : 0;
}

/* The hand-written adjoint: the forward keeps every state (with its
 * halos); the reverse walks the steps back. */
static void manual(const double *x, double *dx, int n) {
  int left, right;
  neighbours(&left, &right);
  size_t w = n + 2;
  double *U = malloc((size_t)(steps + 1) * w * sizeof *U);
  double *ub = calloc(w, sizeof *ub), *vb = malloc(w * sizeof *vb);
  double *u = U;
  u[0] = u[n + 1] = 0;
  for (int i = 0; i < n; i++)
    u[i + 1] = x[i];
  for (int t = 0; t < steps; t++) {
    u = U + t * w;
    double *un = u + w;
    MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 0, &u[0], 1, MPI_DOUBLE, left, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[n + 1], 1, MPI_DOUBLE, right,
                 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 1; i <= n; i++)
      un[i] =
          u[i] + K * (u[i - 1] - 2 * u[i] + u[i + 1]) - C * u[i] * u[i] * u[i];
  }
  u = U + steps * w;
  double l = 0, all;
  for (int i = 1; i <= n; i++)
    l += u[i] * u[i];
  MPI_Allreduce(&l, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  /* The loss is seeded once, so its adjoint is 1 on every rank. */
  for (int i = 1; i <= n; i++)
    ub[i] = 2 * u[i];
  for (int t = steps - 1; t >= 0; t--) {
    u = U + t * w;
    memset(vb, 0, w * sizeof *vb);
    for (int i = 1; i <= n; i++) {
      double b = ub[i];
      vb[i] += b * (1 - 2 * K - 3 * C * u[i] * u[i]);
      vb[i - 1] += K * b;
      vb[i + 1] += K * b;
    }
    double in;
    in = 0;
    MPI_Sendrecv(&vb[n + 1], 1, MPI_DOUBLE, right, 1, &in, 1, MPI_DOUBLE, left,
                 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    vb[1] += in;
    in = 0;
    MPI_Sendrecv(&vb[0], 1, MPI_DOUBLE, left, 0, &in, 1, MPI_DOUBLE, right, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    vb[n] += in;
    vb[0] = vb[n + 1] = 0;
    double *s = ub;
    ub = vb;
    vb = s;
  }
  for (int i = 0; i < n; i++)
    dx[i] += ub[i + 1];
  free(U);
  free(ub);
  free(vb);
}

static double timed(int which, double *x, double *dx, int n, int reps) {
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (which == 0)
      simulate(x, n);
    else if (which == 1)
      __enzyme_autodiff((void *)simulate, enzyme_dup, x, dx, enzyme_const, n);
    else
      manual(x, dx, n);
    double t = MPI_Wtime() - t0, tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (tmax < best)
      best = tmax;
  }
  return best;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = argc > 1 ? atoi(argv[1]) : 20000;
  steps = argc > 2 ? atoi(argv[2]) : 40;
  int reps = argc > 3 ? atoi(argv[3]) : 5;
  double *x = malloc(n * sizeof *x), *dz = calloc(n, sizeof *dz),
         *dm = calloc(n, sizeof *dm);
  for (int i = 0; i < n; i++)
    x[i] = 0.5 + 0.4 * sin(0.01 * (i + (double)n * rank));
  __enzyme_autodiff((void *)simulate, enzyme_dup, x, dz, enzyme_const, n);
  manual(x, dm, n);
  double err = 0, e;
  for (int i = 0; i < n; i++) {
    double d = fabs(dz[i] - dm[i]) / fmax(1e-30, fmax(fabs(dm[i]), 1e-3));
    err = d > err ? d : err;
  }
  MPI_Allreduce(&err, &e, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double tp = timed(0, x, dz, n, reps), tz = timed(1, x, dz, n, reps),
         tm = timed(2, x, dm, n, reps);
  if (rank == 0)
    printf("%5d %9d %6d %11.6f %11.6f %11.6f %8.2f %8.2f %8.2f  %.1e\n", size,
           n, steps, tp, tz, tm, tz / tp, tm / tp, tz / tm, e);
  MPI_Finalize();
  return e > 1e-9;
}
