// Batch mode (__enzyme_batch) with Enzyme's conventions: after
// enzyme_width, N an argument is N values, one per lane (enzyme_vector,
// or no marker), or one value for all lanes (enzyme_scalar); the call
// returns the N results in a row.  Widths 1, 2, 4 and 7 against the
// function called lane by lane: scalars, a loop and math functions, a
// pointer per lane that the function writes (Enzyme's char-ptr test), a
// shared read-only table, and a callee that writes nothing outside its
// frame.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
#include "check.h"

extern int enzyme_width, enzyme_vector, enzyme_scalar;
typedef struct {
  double y[2];
} B2;
typedef struct {
  double y[4];
} B4;
typedef struct {
  double y[7];
} B7;
double __enzyme_batch(void *, ...);
B2 __enzyme_batch2(void *, ...);
B4 __enzyme_batch4(void *, ...);
B7 __enzyme_batch7(void *, ...);
void __enzyme_batch_void(void *, ...);

__attribute__((noinline)) double helper(double a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += sin(a * i) / (i + 1);
  return s;
}

double f(double x, double c, const double *table, int n) {
  double s = c;
  for (int i = 0; i < n; i++)
    s = s * x + table[i] + exp(-x * i);
  return s + helper(x, n) + pow(x, c);
}

void store(const double *in, double *out, double scale) {
  for (int i = 0; i < 3; i++)
    out[i] = in[i] * in[i] * scale;
}

static double lane(int j) { return 0.2 + 0.37 * j; }

int main(void) {
  const double table[5] = {0.5, -1.25, 2, 0.75, -0.3};
  char what[64];
  double one =
      __enzyme_batch((void *)f, enzyme_width, 1, lane(0), enzyme_scalar, 1.5,
                     enzyme_scalar, table, enzyme_scalar, 5);
  zy_check_close("width 1", one, f(lane(0), 1.5, table, 5), 1e-15);
  B2 b2 = __enzyme_batch2((void *)f, enzyme_width, 2, enzyme_vector, lane(0),
                          lane(1), enzyme_vector, 1.5, 2.5, enzyme_scalar,
                          table, enzyme_scalar, 5);
  for (int j = 0; j < 2; j++) {
    snprintf(what, sizeof what, "width 2 lane %d", j);
    zy_check_close(what, b2.y[j], f(lane(j), 1.5 + j, table, 5), 1e-15);
  }
  B4 b4 = __enzyme_batch4((void *)f, enzyme_width, 4, lane(0), lane(1), lane(2),
                          lane(3), enzyme_scalar, 1.5, enzyme_scalar, table, 5,
                          4, 3, 2);
  for (int j = 0; j < 4; j++) {
    snprintf(what, sizeof what, "width 4 lane %d", j);
    zy_check_close(what, b4.y[j], f(lane(j), 1.5, table, 5 - j), 1e-15);
  }
  B7 b7 = __enzyme_batch7((void *)f, enzyme_width, 7, lane(0), lane(1), lane(2),
                          lane(3), lane(4), lane(5), lane(6), enzyme_scalar,
                          0.5, enzyme_scalar, table, enzyme_scalar, 4);
  for (int j = 0; j < 7; j++) {
    snprintf(what, sizeof what, "width 7 lane %d", j);
    zy_check_close(what, b7.y[j], f(lane(j), 0.5, table, 4), 1e-15);
  }
  /* a pointer per lane, written */
  double in[4][3], out[4][3];
  for (int j = 0; j < 4; j++)
    for (int i = 0; i < 3; i++)
      in[j][i] = lane(j) + i;
  __enzyme_batch_void((void *)store, enzyme_width, 4, in[0], in[1], in[2],
                      in[3], out[0], out[1], out[2], out[3], enzyme_scalar,
                      2.0);
  for (int j = 0; j < 4; j++)
    for (int i = 0; i < 3; i++) {
      snprintf(what, sizeof what, "store lane %d [%d]", j, i);
      zy_check_close(what, out[j][i], in[j][i] * in[j][i] * 2.0, 1e-15);
    }
  return zy_report();
}
