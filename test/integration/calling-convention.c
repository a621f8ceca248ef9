// The __enzyme_autodiff calling convention: one active argument returning
// double, two and three gradients in structs (three doubles come back through
// sret), float arguments promoted through the variadic call, {float, float}
// and {float, float, float} results, enzyme_const and enzyme_out passed by
// value and by address, enzyme_active as enzyme_out, integer, bool and constant-pointer arguments, and a
// function returning int.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O0 -fno-math-errno %s -lm -o %t4 && %t4
// RUN: %clang -O2 -fno-math-errno %s -lm -o %t5 && %t5
#include "fd.h"

#include <stdbool.h>

int enzyme_const, enzyme_out, enzyme_active;

double __enzyme_autodiff(void *, ...);
float __enzyme_autodiff_f(void *, ...);
typedef struct { double dx, dy; } G2;
G2 __enzyme_autodiff2(void *, ...);
typedef struct { double dx, dy, dz; } G3;
G3 __enzyme_autodiff3(void *, ...); /* returned through sret on x86-64 */
typedef struct { float dx, dy; } F2;
F2 __enzyme_autodiff_f2(void *, ...); /* returned as <2 x float> */
typedef struct { float dx, dy, dz; } F3;
F3 __enzyme_autodiff_f3(void *, ...); /* returned as {<2 x float>, float} */
typedef struct { float dx; double dy; } FD;
FD __enzyme_autodiff_fd(void *, ...);
void __enzyme_autodiff_void(void *, ...);

double one(double x) { return x * x * x; }
double two(double x, double y) { return x * x * y + sin(y); }
double three(double x, double y, double z) { return x * y * z + z * z; }
float fone(float x) { return x * x; }
float ftwo(float x, float y) { return x * y + y * y; }
float fthree(float x, float y, float z) { return x * y * z; }
double fmixed(float x, double y) { return x * y; }
/* integer arguments of all widths, and bool, are constants */
double ints(int n, double x, long k, double y, unsigned char c, short s, bool b) {
  return n * x * x + k * y + c * x * y + s * y + (b ? x : y);
}
/* a pointer argument passed with enzyme_const: read-only parameters */
double table(double x, const double *coef) {
  return coef[0] + coef[1] * x + coef[2] * x * x;
}
/* returns int: no derivative flows back */
int int_result(double x) { return (int)(x * 10) + 1; }
double nothing_active(double x, int n) { return x * n; }

int main(void) {
  static const double px[] = {1.5, -0.8, 2.25};
  static const double coef[] = {1.0, -2.0, 0.5};
  for (int i = 0; i < 3; i++) {
    double x = px[i], y = 0.6 - x, z = x * 0.5 + 1;
    zy_check_close("one", __enzyme_autodiff((void *)one, x), 3 * x * x, ZY_TOL);
    zy_check_close("one, enzyme_out",
                   __enzyme_autodiff((void *)one, enzyme_out, x), 3 * x * x,
                   ZY_TOL);
    zy_check_close("one, &enzyme_out",
                   __enzyme_autodiff((void *)one, &enzyme_out, x), 3 * x * x,
                   ZY_TOL);

    G2 g = __enzyme_autodiff2((void *)two, x, y);
    zy_check_close("two dx", g.dx, 2 * x * y, ZY_TOL);
    zy_check_close("two dy", g.dy, x * x + cos(y), ZY_TOL);
    g = __enzyme_autodiff2((void *)two, enzyme_out, x, enzyme_out, y);
    zy_check_close("two enzyme_out dx", g.dx, 2 * x * y, ZY_TOL);
    zy_check_close("two enzyme_out dy", g.dy, x * x + cos(y), ZY_TOL);
    g = __enzyme_autodiff2((void *)two, enzyme_active, x, enzyme_const, y);
    zy_check_close("two enzyme_active dx", g.dx, 2 * x * y, ZY_TOL);
    zy_check_close("two, enzyme_const x",
                   __enzyme_autodiff((void *)two, enzyme_const, x, y),
                   x * x + cos(y), ZY_TOL);
    zy_check_close("two, enzyme_const y",
                   __enzyme_autodiff((void *)two, x, enzyme_const, y),
                   2 * x * y, ZY_TOL);
    zy_check_close("two, &enzyme_const y",
                   __enzyme_autodiff((void *)two, x, &enzyme_const, y),
                   2 * x * y, ZY_TOL);
    zy_check_close("two, (void *)&enzyme_const x",
                   __enzyme_autodiff((void *)two, (void *)&enzyme_const, x, y),
                   x * x + cos(y), ZY_TOL);
    __enzyme_autodiff_void((void *)two, enzyme_const, x, enzyme_const, y);

    G3 h = __enzyme_autodiff3((void *)three, x, y, z);
    zy_check_close("three dx", h.dx, y * z, ZY_TOL);
    zy_check_close("three dy", h.dy, x * z, ZY_TOL);
    zy_check_close("three dz", h.dz, x * y + 2 * z, ZY_TOL);
    g = __enzyme_autodiff2((void *)three, x, enzyme_const, y, z);
    zy_check_close("three, const y dx", g.dx, y * z, ZY_TOL);
    zy_check_close("three, const y dz", g.dy, x * y + 2 * z, ZY_TOL);

    float fx = (float)x, fy = (float)y, fz = (float)z;
    zy_check_close("float", __enzyme_autodiff_f((void *)fone, fx), 2.0 * fx,
                   1e-6);
    zy_check_close("float, double result", __enzyme_autodiff((void *)fone, fx),
                   2.0 * fx, 1e-6);
    F2 f2 = __enzyme_autodiff_f2((void *)ftwo, fx, fy);
    zy_check_close("{float, float} dx", f2.dx, fy, 1e-6);
    zy_check_close("{float, float} dy", f2.dy, fx + 2.0 * fy, 1e-6);
    F3 f3 = __enzyme_autodiff_f3((void *)fthree, fx, fy, fz);
    zy_check_close("{float, float, float} dx", f3.dx, (double)fy * fz, 1e-6);
    zy_check_close("{float, float, float} dy", f3.dy, (double)fx * fz, 1e-6);
    zy_check_close("{float, float, float} dz", f3.dz, (double)fx * fy, 1e-6);
    FD fd = __enzyme_autodiff_fd((void *)fmixed, fx, y);
    zy_check_close("{float, double} dx", fd.dx, y, 1e-6);
    zy_check_close("{float, double} dy", fd.dy, fx, ZY_TOL);

    g = __enzyme_autodiff2((void *)ints, 3, x, -4L, y, (unsigned char)200,
                           (short)-7, true);
    zy_check_close("ints dx", g.dx, 6 * x + 200 * y + 1, ZY_TOL);
    zy_check_close("ints dy", g.dy, -4 + 200 * x - 7, ZY_TOL);
    g = __enzyme_autodiff2((void *)ints, -1, x, 5L, y, (unsigned char)1,
                           (short)2, false);
    zy_check_close("ints dx (false)", g.dx, -2 * x + y, ZY_TOL);
    zy_check_close("ints dy (false)", g.dy, 5 + x + 2 + 1, ZY_TOL);

    zy_check_close("const pointer",
                   __enzyme_autodiff((void *)table, x, enzyme_const, coef),
                   coef[1] + 2 * coef[2] * x, ZY_TOL);
    zy_check_close("int result", __enzyme_autodiff((void *)int_result, x), 0,
                   ZY_TOL);
    zy_check_close("x * n", __enzyme_autodiff((void *)nothing_active, x, 4), 4,
                   ZY_TOL);
  }
  return zy_report();
}
