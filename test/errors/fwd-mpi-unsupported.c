// errors/fwd-mpi-unsupported.c - what forward mode does not differentiate
// through MPI is a located error at the call: completions other than
// MPI_Wait/MPI_Waitall (MPI_Test), nonblocking collectives
// (MPI_Iallreduce), persistent requests (MPI_Send_init), MINLOC/MAXLOC
// reductions; and, as for gradients (the same check), calls Zymase does
// not know (MPI_Put) and user-defined reduction ops.  Compiled with -DFOR,
// forward over reverse through the gradient of MPI_Irecv, MPI_Isend and
// MPI_Waitall, located at the MPI call.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: mpi
// RUN: %not %clang -c -O0 -g %s %mpi-flags -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s %mpi-flags -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %if mpich %{ %not %clang -c -O2 -g %s %mpich-flags -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error' %}
// RUN: %not %clang -c -O0 -g %s %mpi-flags -DFOR -o %t.o 2>&1 | %FileCheck %s --check-prefix=FOR --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s %mpi-flags -DFOR -o %t.o 2>&1 | %FileCheck %s --check-prefix=FOR --implicit-check-not=PLEASE --implicit-check-not='internal error'
#include <mpi.h>

#ifdef FOR
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff_void(void *, ...);

double nonblocking(double *x, int n) {
  double b[4];
  MPI_Request r[2];
  // FOR: fwd-mpi-unsupported.c:[[@LINE+2]]:3: error: [zymase:unsupported] {{.*}}forward mode over a gradient: the gradient of nonblocking MPI calls (a call to '__zymase_mpi.put') is not differentiated in forward mode yet
  // FOR: hint: use blocking MPI calls
  MPI_Irecv(b, n, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &r[0]);
  MPI_Isend(x, n, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &r[1]);
  MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  return b[0] * b[0] * x[0];
}

void gradient(double *x, double *g, int n) {
  __enzyme_autodiff((void *)nonblocking, enzyme_dup, x, g, enzyme_const, n);
}

void hessian_vector(double *x, double *v, double *g, double *hv) {
  __enzyme_fwddiff_void((void *)gradient, enzyme_dup, x, v, enzyme_dup, g, hv,
                        enzyme_const, 2);
}
#else

double __enzyme_fwddiff(void *, ...);
MPI_Win win;
MPI_Op myop;

__attribute__((noinline)) double test(double *x, int n) {
  double y[4];
  MPI_Request r;
  int done;
  MPI_Irecv(y, n, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &r);
  // CHECK: fwd-mpi-unsupported.c:[[@LINE+2]]:3: error: [zymase:unsupported] cannot differentiate 'test': forward mode: the MPI call 'MPI_Test' is not differentiated in forward mode yet
  // CHECK: hint: complete requests with MPI_Wait or MPI_Waitall
  MPI_Test(&r, &done, MPI_STATUS_IGNORE);
  return y[0] * x[0];
}

__attribute__((noinline)) double iallreduce(double *x, int n) {
  double y[4];
  MPI_Request r;
  // CHECK: fwd-mpi-unsupported.c:[[@LINE+2]]:3: error: [zymase:unsupported] cannot differentiate 'iallreduce': forward mode: the MPI call 'MPI_Iallreduce' is not differentiated in forward mode yet
  // CHECK: hint: use the blocking collective
  MPI_Iallreduce(x, y, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  return y[0];
}

__attribute__((noinline)) double persistent(double *x, int n) {
  MPI_Request r;
  // CHECK: fwd-mpi-unsupported.c:[[@LINE+1]]:3: error: [zymase:unsupported] cannot differentiate 'persistent': forward mode: the MPI call 'MPI_Send_init' is not differentiated in forward mode yet
  MPI_Send_init(x, n, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &r);
  MPI_Start(&r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  MPI_Request_free(&r);
  return x[0];
}

__attribute__((noinline)) double minloc(double *x, int n) {
  struct {
    double v;
    int i;
  } in = {x[0], 0}, out;
  // CHECK: fwd-mpi-unsupported.c:[[@LINE+2]]:3: error: [zymase:unsupported] cannot differentiate 'minloc': forward mode: the MPI call 'MPI_Allreduce' is not differentiated in forward mode yet
  // CHECK: hint: reduce values with MPI_MAX or MPI_MIN
  MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
  return out.v;
}

__attribute__((noinline)) double put(double *x, int n) {
  // CHECK: fwd-mpi-unsupported.c:[[@LINE+2]]:3: error: [zymase:unsupported] cannot differentiate 'put': the MPI call 'MPI_Put' is not differentiated
  // CHECK: hint: move the call out of the differentiated code
  MPI_Put(x, n, MPI_DOUBLE, 1, 0, n, MPI_DOUBLE, win);
  return x[0];
}

__attribute__((noinline)) double userop(double *x, int n) {
  double y[4];
  // CHECK: fwd-mpi-unsupported.c:[[@LINE+1]]:3: error: [zymase:unsupported] cannot differentiate 'userop': the reduction op of 'MPI_Allreduce' is not differentiated
  MPI_Allreduce(x, y, n, MPI_DOUBLE, myop, MPI_COMM_WORLD);
  return y[0];
}

double all(double *x, double *dx) {
  return __enzyme_fwddiff((void *)test, x, dx, 2) +
         __enzyme_fwddiff((void *)iallreduce, x, dx, 2) +
         __enzyme_fwddiff((void *)persistent, x, dx, 2) +
         __enzyme_fwddiff((void *)minloc, x, dx, 2) +
         __enzyme_fwddiff((void *)put, x, dx, 2) +
         __enzyme_fwddiff((void *)userop, x, dx, 2);
}
#endif
