/* primal.c - the objective on double, compiled without any AD plugin: the
 * time every gradient is divided by.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "bench.h"
#include "zyreal.h"
#include ZYW_HEADER

static double primal(const double *p, const void *data) {
  return ZYW_OBJECTIVE(p, (const ZYW_DATA *)data);
}

const ZybPrimalFn zyb_primal = primal;
