// Calls of functions (not inlined) returning pointers in the shapes C
// gives them: a union of a pointer and a long, {int, pointer},
// {float, float, pointer}, {char, pointer}, an array of two pointers in a
// struct, a double ** the callee allocates, and a struct {double **rows;
// int n} whose count is a constant inserted beside the pointer.  That
// last one was refused in reverse mode at -O0, -O1 and -O2 ("cannot build
// the shadow of this aggregate" at `insertvalue {ptr, i32} %r, i32 3, 1`):
// the shadow of the struct takes null for a constant field that holds no
// pointer, as it does for any other such field.  Gradients and tangents
// against central differences; the primal against a plain evaluation.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
#include "fd.h"

#include <stdlib.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup;

#define N 6
#define NOI __attribute__((noinline))

typedef union {
  double *p;
  long i;
} UP;
typedef struct {
  int n;
  double *p;
} NP;
typedef struct {
  float a, b;
  double *p;
} FFP;
typedef struct {
  double **rows;
  int n;
} Rows;
typedef struct {
  char tag;
  double *p;
} CP;
typedef struct {
  double *p[2];
} PA;
NOI UP up_make(double *x, int k) {
  UP u;
  u.p = x + k;
  return u;
}
double union_ret(double *x) {
  UP u = up_make(x, 2);
  UP w = up_make(x, 0);
  return u.p[0] * w.p[1] + u.p[3] * u.p[1];
}
NOI NP np_make(double *x) {
  NP r = {3, x + 1};
  return r;
}
double int_ptr_ret(double *x) {
  NP r = np_make(x);
  double s = 0;
  for (int i = 0; i < r.n; i++)
    s += r.p[i] * r.p[i + 1];
  return s;
}
NOI FFP ffp_make(double *x) {
  FFP r = {1.5f, (float)x[0], x + 2};
  return r;
}
double float_ptr_ret(double *x) {
  FFP r = ffp_make(x);
  return r.a * r.p[0] * r.p[1] + r.p[3];
}
NOI double **rows_make(double *x) {
  double **r = malloc(2 * sizeof *r);
  r[0] = x;
  r[1] = x + 3;
  return r;
}
double ptrptr_ret(double *x) {
  double **r = rows_make(x);
  double s = r[0][0] * r[1][1] + r[0][2] * r[1][2];
  free(r);
  return s;
}
NOI Rows rowsS_make(double *x) {
  Rows r = {malloc(3 * sizeof(double *)), 3};
  for (int i = 0; i < 3; i++)
    r.rows[i] = x + i;
  return r;
}
double rows_struct_ret(double *x) {
  Rows r = rowsS_make(x);
  double s = 0;
  for (int i = 0; i < r.n; i++)
    s += r.rows[i][0] * r.rows[i][3];
  free(r.rows);
  return s;
}
NOI CP cp_make(double *x) {
  CP r = {'a', x + 1};
  return r;
}
double char_ptr_ret(double *x) {
  CP r = cp_make(x);
  return r.p[0] * r.p[4] + r.tag;
}
NOI PA pa_make(double *x) {
  PA r = {{x + 4, x}};
  return r;
}
double arr_ptr_ret(double *x) {
  PA r = pa_make(x);
  return r.p[0][0] * r.p[1][1] + r.p[0][1] * r.p[1][0];
}
static double rows_plain(const double *x) {
  double s = 0;
  for (int i = 0; i < 3; i++)
    s += x[i] * x[i + 3];
  return s;
}

#include "check-modes.h"
MODES(union_ret)
MODES(int_ptr_ret)
MODES(float_ptr_ret)
MODES(ptrptr_ret)
MODES(rows_struct_ret)
MODES(char_ptr_ret)
MODES(arr_ptr_ret)

int main(void) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.4 + 0.3 * i - 0.05 * i * i + 0.01 * i * i * i;
  zy_check_close("rows_struct_ret primal", rows_struct_ret(x), rows_plain(x),
                 1e-15);
  check("union_ret", union_ret, grad_union_ret, tan_union_ret, x);
  check("int_ptr_ret", int_ptr_ret, grad_int_ptr_ret, tan_int_ptr_ret, x);
  check("float_ptr_ret", float_ptr_ret, grad_float_ptr_ret, tan_float_ptr_ret,
        x);
  check("ptrptr_ret", ptrptr_ret, grad_ptrptr_ret, tan_ptrptr_ret, x);
  check("rows_struct_ret", rows_struct_ret, grad_rows_struct_ret,
        tan_rows_struct_ret, x);
  check("char_ptr_ret", char_ptr_ret, grad_char_ptr_ret, tan_char_ptr_ret, x);
  check("arr_ptr_ret", arr_ptr_ret, grad_arr_ptr_ret, tan_arr_ptr_ret, x);
  return zy_report();
}
