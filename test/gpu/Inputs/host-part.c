/* host-part.c - host C code built in the same zymase-clang --gpu-on-cpu
 * command as a CUDA file (cuda-runtime-api.cu): compiled as host code,
 * with the plugin, so that __enzyme_autodiff works in it too.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <math.h>

int enzyme_const;
double __enzyme_autodiff(void *, ...);

static double f(double x, double c) { return c * x * x + sin(x); }

/* df/dx at x, for c. */
double host_part_gradient(double x, double c) {
  return __enzyme_autodiff((void *)f, x, enzyme_const, c);
}
