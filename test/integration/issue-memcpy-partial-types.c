// A struct copy `*dst = *src` (a memcpy) of which only some fields are read
// afterwards: the adjoints of the other fields must still move from dst's
// shadow to src's (or the copy must be refused); they were silently dropped.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -o %t0 2>%t0.err && %t0 || %FileCheck %s --check-prefix=REFUSED < %t0.err
// RUN: %if !quick %{ %clang -O1 %s -o %t1 && %t1 %}
// RUN: %clang -O2 %s -o %t2 && %t2
// REFUSED: error: [zymase:unsupported] cannot differentiate 'f': cannot deduce the type of the memory this copy moves
#include "check.h"

void __enzyme_autodiff(void *, ...);

struct S {
  double a, b, c;
};

/* Only dst->a is read: the types of b and c are known only from the
 * struct type (and, from -O1, the memcpy's !tbaa.struct). */
double f(struct S *dst, const struct S *src) {
  *dst = *src;
  return dst->a;
}

int main(void) {
  struct S src = {1, 2, 3}, dst = {0}, ds = {0}, dd = {0.5, 0.25, 0.125};
  __enzyme_autodiff((void *)f, &dst, &dd, &src, &ds);
  zy_check_close("d src.a", ds.a, 1.5, 0);
  zy_check_close("d src.b", ds.b, 0.25, 0);
  zy_check_close("d src.c", ds.c, 0.125, 0);
  zy_check_close("d dst.a", dd.a, 0, 0);
  zy_check_close("d dst.b", dd.b, 0, 0);
  zy_check_close("d dst.c", dd.c, 0, 0);
  return zy_report();
}
