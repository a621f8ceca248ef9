; activity/constant-memory.ll - loads from memory without a shadow are
; constant: a `constant` global (directly, through a GEP by any integer
; index, or through a pointer a callee returns into it), a global marked
; inactive, and a pointer argument passed enzyme_const.  What is computed
; only from them is constant; multiplied with an active value the product
; is active.  A mutable global is shadowed even when the function never
; writes it, and `readonly` does not make a dup argument constant.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-activity>' -disable-output %s 2>&1 | %FileCheck %s
; RUN: %zyopt %s -S | %FileCheck %s --check-prefix=GRAD \
; RUN:   --implicit-check-not='@table.zymase_shadow' --implicit-check-not='@ig.zymase_shadow'
;
; The printer makes every floating-point argument and the return active and
; shadows every pointer argument, as __enzyme_autodiff does without markers;
; it cannot express enzyme_const, so that case is checked on the gradient
; (GRAD).  GRAD also checks that the constant table and the inactive global
; get no shadow global, while the mutable one does.

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

@table = private unnamed_addr constant [4 x double] [double 1.0, double 2.0, double 4.0, double 8.0]
@g = global double 2.0
@ig = global double 3.0
@__enzyme_inactive_global_ig = global ptr @ig
@enzyme_const = external global i32
@enzyme_dup = external global i32

declare double @__enzyme_autodiff(ptr, ...)

; Defined first so that its activity, printed first, is outside the checks.
define double @caller(ptr %c, ptr %dc, double %x, i64 %i) {
  %r1 = call double (ptr, ...) @__enzyme_autodiff(ptr @table_load, double %x, i64 %i)
  %r2 = call double (ptr, ...) @__enzyme_autodiff(ptr @globals, double %x)
  %r3 = call double (ptr, ...) @__enzyme_autodiff(ptr @readonly_arg, ptr @enzyme_const, ptr %c, double %x)
  %r4 = call double (ptr, ...) @__enzyme_autodiff(ptr @readonly_arg, ptr @enzyme_dup, ptr %c, ptr %dc, double %x)
  %s1 = fadd double %r1, %r2
  %s2 = fadd double %s1, %r3
  %s3 = fadd double %s2, %r4
  %r5 = call double (ptr, ...) @__enzyme_autodiff(ptr @ptr_table, double %x, i64 %i)
  %s4 = fadd double %s3, %r5
  ret double %s4
}

; GRAD-DAG: @g.zymase_shadow = internal global double 0.000000e+00
; The table of pointers (ptr_table, at the end) has a shadow table.
; GRAD-DAG: @ptab.zymase_shadow = internal global [2 x ptr] [ptr @g.zymase_shadow, ptr null]

; A table of doubles, read at a fixed element and at an index argument.
; CHECK-LABEL: activity of 'table_load':
; CHECK-NEXT:  active    double %x
; CHECK-NEXT:  constant  i64 %i
; CHECK-NEXT:  constant  %c0 = load double, ptr @table
; CHECK-NEXT:  constant  %e = getelementptr inbounds [4 x double], ptr @table, i64 0, i64 %i
; CHECK-NEXT:  constant  %ci = load double, ptr %e
; CHECK-NEXT:  constant  %k = fmul double %c0, %ci
; CHECK-NEXT:  active    %r = fmul double %k, %x
; CHECK-NOT:   {{active|constant|shadowed}}
define double @table_load(double %x, i64 %i) {
  %c0 = load double, ptr @table
  %e = getelementptr inbounds [4 x double], ptr @table, i64 0, i64 %i
  %ci = load double, ptr %e
  %k = fmul double %c0, %ci
  %r = fmul double %k, %x
  ret double %r
}

; The gradient reads the table but has nothing to accumulate into it:
; dx = dret * table[0] * table[i] (table[0] = 1 is folded).
; GRAD-LABEL: define internal { double } @__zymase_grad.table_load.{{[0-9a-f.]+}}r(double %0, i64 %1, double %2)
; GRAD:       %ci = load double, ptr %e
; GRAD-NEXT:  [[D:%.*]] = fmul double {{%2, %ci|%ci, %2}}
; GRAD-NEXT:  [[R:%.*]] = insertvalue { double } {{undef|poison}}, double [[D]], 0
; GRAD-NEXT:  ret { double } [[R]]

; The index may even be cut from the active %x: still an integer, still
; constant memory.
; CHECK-LABEL: activity of 'table_active_index':
; CHECK-NEXT:  active    double %x
; CHECK-NEXT:  constant  %i = fptosi double %x to i64
; CHECK-NEXT:  constant  %j = and i64 %i, 3
; CHECK-NEXT:  constant  %e = getelementptr inbounds double, ptr @table, i64 %j
; CHECK-NEXT:  constant  %c = load double, ptr %e
; CHECK-NEXT:  constant  %c2 = fmul double %c, %c
; CHECK-NEXT:  active    %r = fmul double %c2, %x
; CHECK-NOT:   {{active|constant|shadowed}}
define double @table_active_index(double %x) {
  %i = fptosi double %x to i64
  %j = and i64 %i, 3
  %e = getelementptr inbounds double, ptr @table, i64 %j
  %c = load double, ptr %e
  %c2 = fmul double %c, %c
  %r = fmul double %c2, %x
  ret double %r
}

; A constant GEP expression into the table.
; CHECK-LABEL: activity of 'table_constant_gep':
; CHECK-NEXT:  active    double %x
; CHECK-NEXT:  constant  %c = load double, ptr getelementptr inbounds ([4 x double], ptr @table, i64 0, i64 2)
; CHECK-NEXT:  active    %r = fmul double %c, %x
; CHECK-NOT:   {{active|constant|shadowed}}
define double @table_constant_gep(double %x) {
  %c = load double, ptr getelementptr inbounds ([4 x double], ptr @table, i64 0, i64 2)
  %r = fmul double %c, %x
  ret double %r
}

; A pointer returned by a function whose every return is into constant
; memory has no shadow.
; CHECK-LABEL: activity of 'table_via_call':
; CHECK-NEXT:  active    double %x
; CHECK-NEXT:  constant  %p = call ptr @table_row()
; CHECK-NEXT:  constant  %c = load double, ptr %p
; CHECK-NEXT:  active    %r = fmul double %c, %x
; CHECK-NOT:   {{active|constant|shadowed}}
define internal ptr @table_row() {
  ret ptr getelementptr inbounds ([4 x double], ptr @table, i64 0, i64 1)
}

define double @table_via_call(double %x) {
  %p = call ptr @table_row()
  %c = load double, ptr %p
  %r = fmul double %c, %x
  ret double %r
}

; @ig is marked inactive (__enzyme_inactive_global_*): constant.  @g is
; mutable and only read here, yet active: Zymase does not infer constness
; of never-written globals (another function may store derivatives there),
; so it gives @g a shadow global.  Conservative, not wrong: the gradient
; adds dret * x * ig into @g's shadow, which nobody reads.
; CHECK-LABEL: activity of 'globals':
; CHECK-NEXT:  active    double %x
; CHECK-NEXT:  active    %g = load double, ptr @g
; CHECK-NEXT:  constant  %ig = load double, ptr @ig
; CHECK-NEXT:  active    %k = fmul double %g, %ig
; CHECK-NEXT:  active    %r = fmul double %k, %x
; CHECK-NOT:   {{active|constant|shadowed}}
define double @globals(double %x) {
  %g = load double, ptr @g
  %ig = load double, ptr @ig
  %k = fmul double %g, %ig
  %r = fmul double %k, %x
  ret double %r
}

; GRAD-LABEL: define internal { double } @__zymase_grad.globals.{{[0-9a-f.]+}}r(double %0, double %1)
; GRAD:       store double {{.*}}, ptr @g.zymase_shadow
; GRAD-NOT:   store
; GRAD:       ret { double }

; `readonly noalias` says the function does not write %c, not that its
; memory carries no derivatives: as a dup argument %c is shadowed and the
; load active.
; CHECK-LABEL: activity of 'readonly_arg':
; CHECK-NEXT:  shadowed  ptr %c
; CHECK-NEXT:  active    double %x
; CHECK-NEXT:  active    %v = load double, ptr %c
; CHECK-NEXT:  active    %r = fmul double %v, %x
; CHECK-NOT:   {{active|constant|shadowed}}
define double @readonly_arg(ptr readonly noalias %c, double %x) {
  %v = load double, ptr %c
  %r = fmul double %v, %x
  ret double %r
}

; Passed enzyme_const, %c has no shadow parameter and the load is
; constant: the gradient only scales dret by it and stores nothing.
; GRAD-LABEL: define internal { double } @__zymase_grad.readonly_arg.{{[0-9a-f.]+}}r(ptr %0, double %1, double %2)
; GRAD-NEXT:  reverse.:
; GRAD-NEXT:  %v = load double, ptr %0
; GRAD-NEXT:  [[D:%.*]] = fmul double {{%2, %v|%v, %2}}
; GRAD-NEXT:  [[R:%.*]] = insertvalue { double } {{undef|poison}}, double [[D]], 0
; GRAD-NEXT:  ret { double } [[R]]
; Passed enzyme_dup, dret * x is added into the shadow %2.
; GRAD-LABEL: define internal { double } @__zymase_grad.readonly_arg.{{[0-9a-f.]+}}r(ptr %0, double %1, ptr %2, double %3)
; GRAD-DAG:   [[DV:%.*]] = fmul double {{%1, %3|%3, %1}}
; GRAD-DAG:   [[OLD:%.*]] = load double, ptr %2
; GRAD:       [[NEW:%.*]] = fadd nsz double {{.*}}[[DV]]
; GRAD-NEXT:  store double [[NEW]], ptr %2
; GRAD:       ret { double }

; A constant table of pointers to mutable globals is not constant memory
; for AD: the pointers loaded from it reach memory with derivatives, so the
; table is shadowed (its shadow holds the globals' shadows), and so is what
; is loaded from it.  (Zymase used to drop the derivative here.)
; CHECK-LABEL: activity of 'ptr_table':
; CHECK-NEXT:  active    double %x
; CHECK-NEXT:  constant  i64 %i
; CHECK-NEXT:  shadowed  %pp = getelementptr inbounds [2 x ptr], ptr @ptab, i64 0, i64 %i
; CHECK-NEXT:  shadowed  %p = load ptr, ptr %pp
; CHECK-NEXT:  active    %v = load double, ptr %p
; CHECK-NEXT:  active    %r = fmul double %v, 2.000000e+00
@ptab = constant [2 x ptr] [ptr @g, ptr null]

define double @ptr_table(double %x, i64 %i) {
  store double %x, ptr @g
  %pp = getelementptr inbounds [2 x ptr], ptr @ptab, i64 0, i64 %i
  %p = load ptr, ptr %pp
  %v = load double, ptr %p
  %r = fmul double %v, 2.0
  ret double %r
}
