/* mpi_check.h - helpers for the mpi-* tests: every rank computes the
 * global loss; a gradient is compared, on each rank, with collective
 * central finite differences (each rank perturbs its entries in turn while
 * all ranks evaluate the loss) and with closed forms.  Each rank seeds
 * its own return value with 1, so the gradient is that of the sum over
 * ranks of what they return: size * dL/dx when every rank returns L.  Failures
 * are printed by the rank that sees them; the exit status is non-zero on every
 * rank if any rank failed. SPDX-License-Identifier: Apache-2.0 WITH
 * LLVM-exception */
#ifndef ZY_TEST_MPI_CHECK_H
#define ZY_TEST_MPI_CHECK_H

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

static int zy_rank, zy_size, zy_failures, zy_checks;
/* Step and tolerance of the finite differences (larger for floats). */
static double zy_fd_h = 1e-6, zy_fd_tol = 1e-6;

static void zy_mpi_start(int *argc, char ***argv) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &zy_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &zy_size);
}

static void zy_close(const char *what, int i, double got, double want,
                     double tol) {
  zy_checks++;
  double scale = fabs(want) > 1 ? fabs(want) : 1;
  if (!(fabs(got - want) <= tol * scale)) {
    zy_failures++;
    printf("FAIL rank %d %s[%d]: got %.17g, want %.17g\n", zy_rank, what, i,
           got, want);
  }
}

typedef double (*zy_loss)(double *, int);

static double zy_sum_ranks(double v) {
  double all;
  MPI_Allreduce(&v, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

/* Compares gradient `dx` of `f` (n entries per rank) at x0 with central
 * differences of the sum over ranks of f. */
static void zy_fd_compare(const char *what, zy_loss f, const double *x0, int n,
                          const double *dx) {
  double xp[64];
  const double h = zy_fd_h;
  for (int r = 0; r < zy_size; r++)
    for (int i = 0; i < n; i++) {
      memcpy(xp, x0, n * sizeof *xp);
      if (zy_rank == r)
        xp[i] += h;
      double fp = zy_sum_ranks(f(xp, n));
      memcpy(xp, x0, n * sizeof *xp);
      if (zy_rank == r)
        xp[i] -= h;
      double fm = zy_sum_ranks(f(xp, n));
      if (zy_rank == r)
        zy_close(what, i, dx[i], (fp - fm) / (2 * h), zy_fd_tol);
    }
}

/* The gradient of `f` at x0 by Zymase into `dx` (n entries), checked
 * against central differences (f must be a function name: the call to
 * __enzyme_autodiff is here, in the caller). */
#define ZY_CHECK_GRAD(what, f, x0, n, dx)                                      \
  do {                                                                         \
    double x_[64];                                                             \
    memcpy(x_, x0, (n) * sizeof *x_);                                          \
    memset(dx, 0, (n) * sizeof *dx);                                           \
    __enzyme_autodiff((void *)f, enzyme_dup, x_, dx, enzyme_const, n);         \
    zy_fd_compare(what, f, x0, n, dx);                                         \
  } while (0)

static int zy_mpi_finish(void) {
  int local[2] = {zy_failures, zy_checks}, all[2];
  MPI_Allreduce(local, all, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (zy_rank == 0)
    printf("%d ranks: %d checks, %d failed\n", zy_size, all[1], all[0]);
  MPI_Finalize();
  return all[0] != 0;
}

#endif
