/* zymase/enzyme.h - optional declarations for Enzyme's C interface as
 * Zymase implements it: the activity markers and typed entry points.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Nothing here is required: the plugin recognises the names, whoever
 * declares them.  Usage:
 *
 *   #define ZYMASE_DEFINE_MARKERS   // in exactly one file of the program
 *   #include <zymase/enzyme.h>
 *
 *   double f(double x, int n, double y);
 *   double dfdx = __enzyme_autodiff((void *)f, x, enzyme_const, n,
 *                                   enzyme_const, y);
 *
 *   typedef struct { double dx, dy; } G2;
 *   ZYMASE_DECLARE_AUTODIFF(G2, g2);        // G2 __enzyme_autodiff_g2(...)
 *   G2 g = __enzyme_autodiff_g2((void *)f, x, enzyme_const, n, y);
 */
#ifndef ZYMASE_ENZYME_H
#define ZYMASE_ENZYME_H

#ifdef __cplusplus
extern "C" {
#endif

/* Markers, passed before an argument of __enzyme_autodiff:
 *   enzyme_const      the argument gets no derivative;
 *   enzyme_out        the argument is active (already the default for
 *                     floating-point arguments);
 *   enzyme_dup, enzyme_dupnoneed   a pointer and its shadow: not
 *                     supported yet (a compile-time error).
 * The plugin knows them by name.  Their values do not matter, but the
 * program must define them once: define ZYMASE_DEFINE_MARKERS in one file
 * before including this header.  (They cannot be static: the optimizer
 * would replace them by 0 before the plugin sees them.) */
#ifdef ZYMASE_DEFINE_MARKERS
int enzyme_const, enzyme_out, enzyme_dup, enzyme_dupnoneed;
#else
extern int enzyme_const, enzyme_out, enzyme_dup, enzyme_dupnoneed;
#endif

/* The entry point: the derivative of a function with one active argument
 * (the seed of the return value is 1). */
double __enzyme_autodiff(void *fn, ...);

/* Declares another entry point, `T __enzyme_autodiff_<suffix>(void *, ...)`.
 * Every function whose name starts with __enzyme_autodiff is one; its
 * return type says how the gradients come back: for several active
 * arguments, a struct with one field per active argument, in argument
 * order, each of that argument's type. */
#define ZYMASE_DECLARE_AUTODIFF(T, suffix)                                     \
  T __enzyme_autodiff_##suffix(void *fn, ...)

#ifdef __cplusplus
}
#endif

#endif
