// errors/abi-allocation-like-dropped-argument.c - a registered allocator
// that does not use its size argument: the optimizer replaces the argument
// by poison at the program's call, but the gradient is made from the copy
// taken before the optimizer (snapshot.c), where the call still has it, so
// the gradient builds at -O2 as at -O0 (an argument dropped there would be
// refused with a located error).  Refused: a block a callee returned that
// the caller releases with the registered deallocator in another function,
// and a second registration of the same allocator.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --allow-empty --implicit-check-not=error --implicit-check-not=PLEASE
// RUN: %clang -c -O0 %s -o %t.o
// RUN: %not %clang -c -O0 -g -DELSEWHERE %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=ELSEWHERE --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 -DTWICE %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=TWICE --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);

static char blocks[16][64];
static int next;

void *fixed_alloc(int *count, unsigned long bytes) {
  ++*count;
  return blocks[next++ % 16];
}
void fixed_free(int *count, void *p) { --*count, (void)p; }

void *__enzyme_allocation_like[4] = {(void *)fixed_alloc, (void *)1,
                                     (void *)"0,-1", (void *)fixed_free};
#ifdef TWICE
// TWICE: error: [zymase:bad-registration] {{.*}}'__enzyme_allocation_like_again'{{.*}}: a second allocation_like registration for the same allocator
void *__enzyme_allocation_like_again[4] = {(void *)fixed_alloc, (void *)1,
                                           (void *)"0,-1", (void *)fixed_free};
#endif

int live;

__attribute__((noinline)) double *make(double x) {
  double *t = fixed_alloc(&live, sizeof(double));
  *t = x * x;
  return t;
}

double f(double x) { return *make(x); }

#ifdef ELSEWHERE
__attribute__((noinline)) void release(double *t) { fixed_free(&live, t); }

double f_elsewhere(double x) {
  // ELSEWHERE: abi-allocation-like-dropped-argument.c:[[@LINE+1]]:{{[0-9]+}}: error: [zymase:unsupported] cannot differentiate 'f_elsewhere': a block returned by this call is released by the registered deallocator 'fixed_free' in another function or loop: its shadow cannot be released the same way
  double *t = make(x), r = *t * x;
  release(t);
  return r;
}

double g_elsewhere(double x) { return __enzyme_autodiff((void *)f_elsewhere, x); }
#endif

double g(double x) { return __enzyme_autodiff((void *)f, x); }
