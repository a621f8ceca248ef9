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
 *   enzyme_dup, enzyme_dupnoneed   a pointer followed by its shadow
 *                     (memory of the same layout that receives the
 *                     gradient; dupnoneed: the primal result is not
 *                     needed).
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

/* Split mode.  __enzyme_augmentfwd((void *)f, args...) runs f's forward
 * pass and returns a tape (a pointer), or a struct { void *tape; the
 * result; the result's shadow if it is a pointer }; __enzyme_reverse(
 * (void *)f, args..., [the return adjoint,] tape) runs the reverse pass
 * and returns the gradients as __enzyme_autodiff does.  Both take the
 * same markers, and these options:
 *   enzyme_allocated, N, enzyme_tape, p   the tape lives in the caller's
 *                     buffer p of N bytes (N >= __enzyme_augmentsize);
 *   enzyme_nofree     the reverse frees neither the tape nor its caches;
 *   enzyme_noret      the forward pass does not return the result;
 *   enzyme_const_return, enzyme_active_return, enzyme_dup_return   the
 *                     return value's activity. */
#ifdef ZYMASE_DEFINE_MARKERS
int enzyme_allocated, enzyme_tape, enzyme_nofree, enzyme_noret,
    enzyme_const_return, enzyme_active_return, enzyme_dup_return;
#else
extern int enzyme_allocated, enzyme_tape, enzyme_nofree, enzyme_noret,
    enzyme_const_return, enzyme_active_return, enzyme_dup_return;
#endif

/* `T __enzyme_augmentfwd_<suffix>(void *, ...)`, the same for
 * __enzyme_reverse, and the tape's size in bytes (a compile-time
 * constant) as `S __enzyme_augmentsize_<suffix>(void *, markers...)`. */
#define ZYMASE_DECLARE_AUGMENTFWD(T, suffix)                                   \
  T __enzyme_augmentfwd_##suffix(void *fn, ...)
#define ZYMASE_DECLARE_REVERSE(T, suffix)                                      \
  T __enzyme_reverse_##suffix(void *fn, ...)
#define ZYMASE_DECLARE_AUGMENTSIZE(S, suffix)                                  \
  S __enzyme_augmentsize_##suffix(void *fn, ...)

#ifdef __cplusplus
}
#endif

#endif
