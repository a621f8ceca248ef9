// errors/nested-cycle.c - nested __enzyme_autodiff that never ends: a
// function differentiating itself, and a function whose target calls it
// back, are bad-call errors at the call (one each), not a crash or a hang.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error' --implicit-check-not=error:
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=O2 --implicit-check-not=PLEASE --implicit-check-not='internal error' --implicit-check-not=error:

double __enzyme_autodiff(void *, ...);

double self(double x) {
  // CHECK: nested-cycle.c:[[@LINE+4]]:{{[0-9]+}}: error: [zymase:bad-call] cannot differentiate 'self': nested __enzyme_autodiff never ends: 'self' (the function this call differentiates) reaches this call again
  // CHECK-NEXT: instruction: {{.*}}call double (ptr, ...) @__enzyme_autodiff(ptr {{.*}}@self
  // CHECK-NEXT: hint: differentiate a function that does not itself reach this call
  // O2: nested-cycle.c:[[@LINE+1]]:{{[0-9]+}}: error: [zymase:bad-call] cannot differentiate 'self': nested __enzyme_autodiff never ends: 'self'
  return x * __enzyme_autodiff((void *)self, x);
}

double there(double x);
double back(double x) {
  // CHECK: nested-cycle.c:[[@LINE+2]]:{{[0-9]+}}: error: [zymase:bad-call] cannot differentiate 'back': nested __enzyme_autodiff never ends: 'there' (the function this call differentiates) reaches this call again
  // O2: nested-cycle.c:[[@LINE+1]]:{{[0-9]+}}: error: [zymase:bad-call] cannot differentiate '{{there|back}}': nested __enzyme_autodiff never ends: 'there'
  return __enzyme_autodiff((void *)there, x);
}
double there(double x) { return x * x + back(x); }
// CHECK: 2 errors generated
// O2: 2 errors generated
