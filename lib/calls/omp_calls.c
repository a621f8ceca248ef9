/* omp_calls.c - the table of libomp's runtime calls and what each is to
 * the sweeps.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "omp_calls.h"

#include <string.h>

#define ROW(n, k, l, c) {n, ZY_OMP_##k, l, c}
#define QUIET(n) ROW(n, INACTIVE, -1, NULL)
#define NO(n, c) ROW(n, REFUSED, -1, c)

/* The runtime calls Zymase knows.  INACTIVE calls only schedule work or
 * answer questions (thread numbers, loop bounds, which thread runs a
 * `single`): the forward sweep runs them, and what they decide reaches the
 * reverse sweep through the values cached per thread. */
static const ZyOmpCall table[] = {
    ROW("__kmpc_fork_call", FORK, -1, "parallel"),
    ROW("__kmpc_barrier", BARRIER, -1, "barrier"),
    ROW("__kmpc_critical", ENTER, 2, "critical"),
    ROW("__kmpc_critical_with_hint", ENTER, 2, "critical"),
    ROW("__kmpc_end_critical", EXIT, 2, "critical"),
    ROW("omp_set_lock", ENTER, 0, "omp_set_lock"),
    ROW("omp_unset_lock", EXIT, 0, "omp_unset_lock"),
    ROW("omp_set_nest_lock", ENTER, 0, "omp_set_nest_lock"),
    ROW("omp_unset_nest_lock", EXIT, 0, "omp_unset_nest_lock"),
    ROW("__kmpc_reduce", REDUCE, 6, "reduction"),
    ROW("__kmpc_reduce_nowait", REDUCE, 6, "reduction"),
    ROW("__kmpc_end_reduce", END_REDUCE, 2, "reduction"),
    ROW("__kmpc_end_reduce_nowait", END_REDUCE, 2, "reduction"),
    QUIET("__kmpc_global_thread_num"),
    QUIET("__kmpc_for_static_init_4"),
    QUIET("__kmpc_for_static_init_4u"),
    QUIET("__kmpc_for_static_init_8"),
    QUIET("__kmpc_for_static_init_8u"),
    QUIET("__kmpc_for_static_fini"),
    QUIET("__kmpc_dispatch_init_4"),
    QUIET("__kmpc_dispatch_init_4u"),
    QUIET("__kmpc_dispatch_init_8"),
    QUIET("__kmpc_dispatch_init_8u"),
    QUIET("__kmpc_dispatch_next_4"),
    QUIET("__kmpc_dispatch_next_4u"),
    QUIET("__kmpc_dispatch_next_8"),
    QUIET("__kmpc_dispatch_next_8u"),
    QUIET("__kmpc_dispatch_fini_4"),
    QUIET("__kmpc_dispatch_fini_4u"),
    QUIET("__kmpc_dispatch_fini_8"),
    QUIET("__kmpc_dispatch_fini_8u"),
    QUIET("__kmpc_dispatch_deinit"),
    QUIET("__kmpc_push_num_threads"),
    QUIET("__kmpc_push_proc_bind"),
    QUIET("__kmpc_serialized_parallel"),
    QUIET("__kmpc_end_serialized_parallel"),
    QUIET("__kmpc_master"),
    QUIET("__kmpc_end_master"),
    QUIET("__kmpc_masked"),
    QUIET("__kmpc_end_masked"),
    QUIET("__kmpc_single"),
    QUIET("__kmpc_end_single"),
    QUIET("__kmpc_flush"),
    QUIET("__kmpc_ok_to_fork"),
    QUIET("omp_get_thread_num"),
    QUIET("omp_get_num_threads"),
    QUIET("omp_get_max_threads"),
    QUIET("omp_get_num_procs"),
    QUIET("omp_get_thread_limit"),
    QUIET("omp_in_parallel"),
    QUIET("omp_in_final"),
    QUIET("omp_get_wtime"),
    QUIET("omp_get_wtick"),
    QUIET("omp_get_level"),
    QUIET("omp_get_active_level"),
    QUIET("omp_get_team_size"),
    QUIET("omp_get_ancestor_thread_num"),
    QUIET("omp_set_num_threads"),
    QUIET("omp_get_dynamic"),
    QUIET("omp_set_dynamic"),
    QUIET("omp_get_nested"),
    QUIET("omp_set_nested"),
    QUIET("omp_get_schedule"),
    QUIET("omp_set_schedule"),
    QUIET("omp_get_max_active_levels"),
    QUIET("omp_set_max_active_levels"),
    QUIET("omp_init_lock"),
    QUIET("omp_destroy_lock"),
    QUIET("omp_init_nest_lock"),
    QUIET("omp_destroy_nest_lock"),
    NO("omp_test_lock", "omp_test_lock"),
    NO("omp_test_nest_lock", "omp_test_nest_lock"),
    NO("__kmpc_omp_task_alloc", "task"),
    NO("__kmpc_omp_target_task_alloc", "task"),
    NO("__kmpc_omp_task", "task"),
    NO("__kmpc_omp_task_with_deps", "task"),
    NO("__kmpc_omp_taskwait", "taskwait"),
    NO("__kmpc_omp_taskwait_deps_51", "taskwait"),
    NO("__kmpc_omp_taskyield", "taskyield"),
    NO("__kmpc_taskgroup", "taskgroup"),
    NO("__kmpc_end_taskgroup", "taskgroup"),
    NO("__kmpc_taskloop", "taskloop"),
    NO("__kmpc_taskloop_5", "taskloop"),
    NO("__kmpc_task_reduction_init", "task reduction"),
    NO("__kmpc_taskred_init", "task reduction"),
    NO("__kmpc_ordered", "ordered"),
    NO("__kmpc_end_ordered", "ordered"),
    NO("__kmpc_doacross_init", "ordered(n)"),
    NO("__kmpc_fork_teams", "teams"),
    NO("__kmpc_push_num_teams", "teams"),
    NO("__kmpc_copyprivate", "single copyprivate"),
    NO("__kmpc_threadprivate_cached", "threadprivate"),
    NO("__kmpc_cancel", "cancel"),
    NO("__kmpc_cancellationpoint", "cancellation point"),
    NO("__kmpc_fork_call_if", "parallel if"),
    NO("__tgt_target_kernel", "target"),
    NO("__tgt_target_kernel_nowait", "target nowait"),
    NO("__tgt_target_data_begin_mapper", "target data"),
    NO("__tgt_target_data_end_mapper", "target data"),
    NO("__tgt_target_data_update_mapper", "target update"),
};

static const ZyOmpCall unknown = {"", ZY_OMP_REFUSED, -1, NULL};

const ZyOmpCall *zy_omp_call(LLVMValueRef callee) {
  if (!callee || !LLVMIsAFunction(callee) || !LLVMIsDeclaration(callee))
    return NULL;
  const char *name = LLVMGetValueName(callee);
  if (strncmp(name, "__kmpc_", 7) && strncmp(name, "omp_", 4) &&
      strncmp(name, "__tgt_", 6))
    return NULL;
  for (size_t k = 0; k < sizeof table / sizeof *table; k++)
    if (!strcmp(name, table[k].name))
      return &table[k];
  return &unknown;
}

int zy_omp_inactive_function(LLVMValueRef callee) {
  const ZyOmpCall *c = zy_omp_call(callee);
  return c && c->kind != ZY_OMP_FORK && c->kind != ZY_OMP_REDUCE &&
         c->kind != ZY_OMP_REFUSED;
}
