// errors/abi-allocation-like-malformed.c - malformed __enzyme_allocation_like
// registrations are located bad-registration errors: not four entries, a
// size index that is not a constant or names no integer parameter, a
// deallocator argument string that does not parse or names no parameter
// (or has no -1 for the block), a deallocator that is not a function or
// does not take those arguments.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g -DCASE=1 %s -o %t.o 2>&1 | %FileCheck %s --check-prefixes=C1,C1G --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -DCASE=1 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=C1 --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 -g -DCASE=2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=C2 --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -DCASE=2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=C2 --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 -g -DCASE=3 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=C3 --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 -g -DCASE=4 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=C4 --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -DCASE=4 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=C4 --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 -g -DCASE=5 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=C5 --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 -g -DCASE=6 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=C6 --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 -g -DCASE=7 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=C7 --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -DCASE=7 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=C7 --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 -g -DCASE=8 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=C8 --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);

static int in_use;
int not_a_function;

// C1: abi-allocation-like-malformed.c:[[@LINE+1]]:{{[0-9]+}}: error: [zymase:bad-registration] cannot differentiate 'my_alloc': '__enzyme_allocation_like'
void *my_alloc(unsigned long n, int *count) {
  ++*count;
  static char mem[1024];
  return n < 1024 ? mem : 0;
}
void my_free(int *count, void *p) { --*count, (void)p; }
void my_free_n(long n, void *p) { (void)n, (void)p; }

#if CASE == 1
// C1G-SAME: ({{.*}}abi-allocation-like-malformed.c:[[@LINE+3]])
// C1-SAME: : an allocation_like registration must hold four entries
// C1-NEXT: hint: write void *__enzyme_allocation_like[4]
void *__enzyme_allocation_like[3] = {(void *)my_alloc, (void *)0, (void *)"1,-1"};
#elif CASE == 2
// C2: error: [zymase:bad-registration] {{.*}}'__enzyme_allocation_like_x'{{.*}}: the size index of an allocation_like registration must be a constant naming an integer parameter of 'my_alloc' (it has 2 parameters)
void *__enzyme_allocation_like_x[4] = {(void *)my_alloc, (void *)2, (void *)"1,-1", (void *)my_free};
#elif CASE == 3
// C3: error: [zymase:bad-registration] {{.*}}: the size index of an allocation_like registration must be a constant naming an integer parameter of 'my_alloc'
void *__enzyme_allocation_like[4] = {(void *)my_alloc, (void *)1, (void *)"1,-1", (void *)my_free};
#elif CASE == 4
// C4: error: [zymase:bad-registration] {{.*}}: the deallocator's arguments of an allocation_like registration must be a string of comma-separated indices of parameters of 'my_alloc' (0 to 1) and one -1 for the block, not "1;-1"
void *__enzyme_allocation_like[4] = {(void *)my_alloc, (void *)0, (void *)"1;-1", (void *)my_free};
#elif CASE == 5
// C5: error: [zymase:bad-registration] {{.*}}: the deallocator's arguments {{.*}} not "3,-1"
void *__enzyme_allocation_like[4] = {(void *)my_alloc, (void *)0, (void *)"3,-1", (void *)my_free};
#elif CASE == 6
// C6: error: [zymase:bad-registration] {{.*}}: the deallocator's arguments {{.*}} not "1,0"
void *__enzyme_allocation_like[4] = {(void *)my_alloc, (void *)0, (void *)"1,0", (void *)my_free};
#elif CASE == 7
// C7: error: [zymase:bad-registration] {{.*}}: the deallocator of an allocation_like registration must be a function
void *__enzyme_allocation_like[4] = {(void *)my_alloc, (void *)0, (void *)"1,-1", (void *)&not_a_function};
#elif CASE == 8
// C8: error: [zymase:bad-registration] {{.*}}: the deallocator 'my_free_n' does not take the arguments "1,-1" describes
void *__enzyme_allocation_like[4] = {(void *)my_alloc, (void *)0, (void *)"1,-1", (void *)my_free_n};
#endif

double f(double x) {
  double *t = my_alloc(sizeof(double), &in_use);
  *t = x * x;
  double r = *t;
  my_free(&in_use, t);
  return r;
}

double g(double x) { return __enzyme_autodiff((void *)f, x); }
