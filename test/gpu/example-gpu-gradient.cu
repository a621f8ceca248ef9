// The README's CUDA example (docs/examples/gpu-gradient.cu): its gradient
// matches central finite differences at -O0 and -O2, with the
// accumulation classes and with every update atomic, race-free under
// ThreadSanitizer; the cache report shows the classes the README names;
// the native build for a real GPU (ptxas) succeeds, and runs where a GPU is.
// REQUIRES: cuda
// RUN: %gpu-clang -O0 %S/../../docs/examples/gpu-gradient.cu -o %t0 && %t0 | %FileCheck %s
// RUN: %gpu-clang -O2 -mllvm -zymase-print-cache %S/../../docs/examples/gpu-gradient.cu -o %t2 2> %t.report && %t2 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REPORT < %t.report
// RUN: %gpu-clang -O2 -mllvm -zymase-gpu-all-atomic %S/../../docs/examples/gpu-gradient.cu -o %ta && %ta | %FileCheck %s
// RUN: %if tsan %{ %gpu-clang -O1 -g -fsanitize=thread %S/../../docs/examples/gpu-gradient.cu -o %tt && env TSAN_OPTIONS=halt_on_error=1:exitcode=66 %tt | %FileCheck %s %}
// RUN: %if cuda-native %{ %cuda-native -O2 %S/../../docs/examples/gpu-gradient.cu -o %tn %}
// RUN: %if cuda-gpu %{ %tn | %FileCheck %s %}
// CHECK: the gradient matches finite differences
// REPORT: gradient of '_Z9residual2
// REPORT-DAG: plainly (an element only this thread reads
// REPORT-DAG: summed per thread, then at the return by warp and block sums and one atomic add per block
