; fuzz/smoke.ll - fuzzer smoke test: 20 fixed random C functions
; (tools/fuzz/gen-c.py), most with loops (variable trip counts, capped while
; loops with data-dependent exits, nests, break/continue, local arrays),
; each differentiated at -O0 and -O2, with and without -fno-math-errno: no
; crash, hang, invalid IR, wrong gradient or invalid generated C.  The last
; run scales the gradients by 1.01 to show that the checks catch such an
; error (not in the sanitizer build, which checks the plugin).
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: python3 %S/../../../tools/fuzz/run-fuzz --seed 1 --count 10 --opt 0,2 \
; RUN:   --clang-cmd '%clang' --out %t | %FileCheck %s
; RUN: python3 %S/../../../tools/fuzz/run-fuzz --seed 11 --count 10 --opt 0,2 \
; RUN:   --cflags=-fno-math-errno --clang-cmd '%clang' --out %t | %FileCheck %s
; RUN: %if !quick %{ %not python3 %S/../../../tools/fuzz/run-fuzz --seed 1 \
; RUN:   --count 5 --opt 2 --perturb 0.01 --clang-cmd '%clang' --out %t \
; RUN:   | %FileCheck %s --check-prefix=PERTURB %}
; CHECK: zyfuzz: 20 runs
; CHECK: derivatives: {{[1-9][0-9]*}} checked
; CHECK: loops: {{[1-9][0-9]*}} of 10 cases have loops
; CHECK: failures: 0 crash, 0 hang, 0 invalid-ir, 0 wrong, 0 gen-error, 0 loop-diag
; PERTURB: failures: 0 crash, 0 hang, 0 invalid-ir, {{[1-9]}} wrong, 0 gen-error, 0 loop-diag
