/* driver.c - the module pass: finds the __enzyme_* entry points and
 * lowers every call to them.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad/ad.h"

#include "abi.h"
#include "analysis/registry.h"
#include "analysis/types.h"
#include "blas/blas.h"
#include "gpu/gpu.h"
#include "ir/irutil.h"
#include "ir/rules.h"
#include "llvm/glue.h"
#include "parallel/mpi.h"
#include "parallel/parallel.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int starts_with(const char *s, const char *p) {
  return !strncmp(s, p, strlen(p));
}

static int is_entry_point(const char *name) {
  name = zy_abi_entry_name(name);
  static const char *const prefixes[] = {
      "__enzyme_autodiff", "__enzyme_fwddiff",   "__enzyme_augmentfwd",
      "__enzyme_reverse",  "__enzyme_augmentsize", "__enzyme_batch"};
  for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
    if (starts_with(name, prefixes[i]))
      return 1;
  return 0;
}

/* The calls to entry points, in the order they appear in the module (so
 * errors come out in source order).  In C++, a call in the scope of a
 * destructor or a try is an `invoke`; it becomes a plain call, whose
 * lowering is the same (the entry points never throw themselves). */
static void collect_calls(LLVMModuleRef m, ZyVec *calls) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i)) {
        int call = LLVMIsACallInst(i) ||
                   LLVMGetInstructionOpcode(i) == LLVMInvoke;
        LLVMValueRef callee = call ? LLVMGetCalledValue(i) : 0;
        if (!callee || !LLVMIsAFunction(callee) ||
            !is_entry_point(LLVMGetValueName(callee)))
          continue;
        i = zy_llvm_invoke_to_call(i);
        zy_vec_push(calls, i);
      }
}

/* Lowers one call, whose inner calls are lowered. */
static int lower_one(ZyModule *zm, LLVMValueRef call) {
  const char *name =
      zy_abi_entry_name(LLVMGetValueName(LLVMGetCalledValue(call)));
  if (starts_with(name, "__enzyme_autodiff"))
    return zy_lower_autodiff_call(zm, call);
  if (starts_with(name, "__enzyme_augmentfwd"))
    return zy_lower_augmentfwd_call(zm, call);
  if (starts_with(name, "__enzyme_reverse"))
    return zy_lower_reverse_call(zm, call);
  if (starts_with(name, "__enzyme_augmentsize"))
    return zy_lower_augmentsize_call(zm, call);
  if (starts_with(name, "__enzyme_fwddiff"))
    return zy_lower_fwddiff_call(zm, call);
  if (starts_with(name, "__enzyme_batch"))
    return zy_lower_batch_call(zm, call);
  return zy_error(ZY_ERR_BAD_CALL, NULL, call, NULL,
                  "'%s' is not supported: Zymase implements reverse mode "
                  "(__enzyme_autodiff, __enzyme_augmentfwd, __enzyme_reverse), "
                  "forward mode (__enzyme_fwddiff) and batch mode "
                  "(__enzyme_batch)",
                  name);
}

/* Nested AD: a function passed to __enzyme_autodiff may itself call
 * __enzyme_autodiff (df in  ddf(x) = __enzyme_autodiff(df, x)).  Its
 * gradient differentiates the gradient that call becomes, so every entry
 * point call in the code a gradient may read (the target, what it calls
 * or names, and their pre-optimizer copies) is lowered first, innermost
 * first, whatever the order of the functions in the module.  A call met
 * again while its own target is being prepared can never be lowered (the
 * gradient of f would contain the gradient of itself): an error. */
typedef enum CallState { PENDING, BUSY, DONE, FAILED } CallState;

typedef struct Driver {
  ZyModule zm;
  ZyMap state;    /* entry point call -> CallState + 1 */
  ZyMap by_func;  /* function -> ZyVec* of its entry point calls */
  ZyVec cycles;   /* targets whose cycle is reported (once: the copies
                     of snapshot.c hold the same calls again) */
} Driver;

static CallState state_of(Driver *d, LLVMValueRef call) {
  return (CallState)((size_t)zy_map_get(&d->state, call) - 1);
}

static void set_state(Driver *d, LLVMValueRef call, CallState s) {
  zy_map_put(&d->state, call, (void *)(size_t)(s + 1));
}

static void visit(ZyVec *seen, LLVMValueRef f) {
  if (f && LLVMIsAFunction(f) && !LLVMIsDeclaration(f) &&
      !zy_vec_contains(seen, f))
    zy_vec_push(seen, f);
}

/* The functions with a body that the gradient of `fn` may read: `fn`,
 * every function named in their bodies (called, or passed as a pointer),
 * and the snapshots standing for them. */
static void reachable(LLVMValueRef fn, ZyVec *seen) {
  visit(seen, fn);
  for (size_t k = 0; k < seen->len; k++) {
    LLVMValueRef f = seen->data[k];
    visit(seen, zy_snapshot_source(f));
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i))
        for (int n = LLVMGetNumOperands(i), o = 0; o < n; o++) {
          LLVMValueRef v = LLVMGetOperand(i, o);
          if (v && LLVMIsAConstantExpr(v) && LLVMGetNumOperands(v) == 1)
            v = LLVMGetOperand(v, 0); /* a cast */
          visit(seen, v);
        }
  }
}

static int lower(Driver *d, LLVMValueRef call);

/* Lowers the entry point calls in what the gradient of `fn` reads;
 * -1 when one of them failed (its error is reported). */
static int lower_inner_calls(Driver *d, LLVMValueRef fn) {
  ZyVec seen = {0};
  reachable(fn, &seen);
  int err = 0;
  for (size_t k = 0; k < seen.len; k++) {
    ZyVec *calls = zy_map_get(&d->by_func, seen.data[k]);
    for (size_t c = 0; calls && c < calls->len; c++)
      if (lower(d, calls->data[c]))
        err = -1;
  }
  zy_vec_free(&seen);
  return err;
}

static int lower(Driver *d, LLVMValueRef call) {
  CallState s = state_of(d, call);
  if (s == DONE || s == FAILED)
    return s == DONE ? 0 : -1;
  LLVMValueRef caller = LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
  LLVMValueRef target = zy_abi_target(call);
  if (s == BUSY) {
    set_state(d, call, FAILED);
    if (zy_vec_contains(&d->cycles, target))
      return -1;
    zy_vec_push(&d->cycles, target);
    return zy_error(ZY_ERR_BAD_CALL, caller, call,
                    "differentiate a function that does not itself reach "
                    "this call",
                    "nested __enzyme_autodiff never ends: '%s' (the function "
                    "this call differentiates) reaches this call again, so "
                    "its gradient would contain the gradient of itself",
                    target ? LLVMGetValueName(target) : "?");
  }
  set_state(d, call, BUSY);
  int err = target && !LLVMIsDeclaration(target) &&
            lower_inner_calls(d, target);
  if (state_of(d, call) == BUSY) /* not failed as part of a cycle */
    set_state(d, call, err || lower_one(&d->zm, call) ? FAILED : DONE);
  return state_of(d, call) == DONE ? 0 : -1;
}

/* The entry points whose function is differentiated (its snapshot is
 * taken before the optimizer runs). */
static int differentiates(const char *name) {
  name = zy_abi_entry_name(name);
  return starts_with(name, "__enzyme_autodiff") ||
         starts_with(name, "__enzyme_fwddiff") ||
         starts_with(name, "__enzyme_augmentfwd") ||
         starts_with(name, "__enzyme_reverse");
}

static int is_entry_call(LLVMValueRef v) {
  LLVMValueRef f = LLVMIsACallInst(v) ? LLVMGetCalledValue(v) : NULL;
  return f && LLVMIsAFunction(f) && is_entry_point(LLVMGetValueName(f));
}

/* A user of `v` other than a call to an entry point (one that could not
 * be lowered has been reported already) or a device variable's
 * registration (registry.h), directly or through a load: where a marker
 * is used for something else.  NULL if there is none. */
static LLVMValueRef live_use(LLVMValueRef v) {
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (is_entry_call(user) || zy_registry_device_var_call(user))
      continue;
    if (!LLVMIsALoadInst(user))
      return user;
    for (LLVMUseRef l = LLVMGetFirstUse(user); l; l = LLVMGetNextUse(l))
      if (!is_entry_call(LLVMGetUser(l)))
        return LLVMGetUser(l);
  }
  return NULL;
}

static LLVMValueRef function_of(LLVMValueRef inst) {
  return LLVMIsAInstruction(inst)
             ? LLVMGetBasicBlockParent(LLVMGetInstructionParent(inst))
             : NULL;
}

/* Once the calls to entry points are lowered, any name of Enzyme's
 * interface still in use is one Zymase does not implement: an error,
 * never skipped (a call to __enzyme_todense, a marker passed elsewhere
 * than to an entry point).  Registrations are checked by registry.c. */
static void check_leftover_names(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    LLVMValueRef user = live_use(f);
    if (starts_with(zy_abi_entry_name(LLVMGetValueName(f)), "__enzyme_") &&
        user &&
        !is_entry_point(LLVMGetValueName(f)))
      zy_error(ZY_ERR_BAD_CALL, function_of(user), user,
               "see README.md, \"Coming from Enzyme\", for what Zymase "
               "implements",
               "'%s' is part of Enzyme's interface that Zymase does not "
               "implement", LLVMGetValueName(f));
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    const char *name = LLVMGetValueName(g);
    LLVMValueRef user = live_use(g);
    if (starts_with(name, "enzyme_") && user && !zy_abi_marker_known(name) &&
        function_of(user))
      zy_error(ZY_ERR_BAD_MARKER, function_of(user), user,
               "markers are only read as arguments of __enzyme_autodiff",
               "'%s' is part of Enzyme's interface that Zymase does not "
               "implement", name);
  }
}

/* Registered math-like functions must match a derivative rule. */
static void check_function_like(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (zy_registry_function_like(f) && !zy_rule_for_call(f))
      zy_error(ZY_ERR_BAD_REGISTRATION, f, NULL,
               "name a math function with a derivative rule (see "
               "lib/ir/rules.def), whose parameters and result have the "
               "types of this function's",
               "it is registered as like '%s', which has no derivative rule "
               "for a function of this type", zy_registry_function_like(f));
}

/* Whether a differentiated function may reach an entry point call (nested
 * AD): the gradient that call becomes is then differentiated too. */
static int nested_ad(Driver *d, ZyVec *calls) {
  ZyVec seen = {0};
  for (size_t i = 0; i < calls->len; i++) {
    LLVMValueRef call = calls->data[i];
    if (differentiates(LLVMGetValueName(LLVMGetCalledValue(call))))
      visit(&seen, zy_abi_target(call));
  }
  reachable(NULL, &seen); /* closes what the targets name */
  int nested = 0;
  for (size_t k = 0; k < seen.len && !nested; k++)
    nested = zy_map_get(&d->by_func, seen.data[k]) != NULL;
  zy_vec_free(&seen);
  return nested;
}

/* Whether `m` uses an entry point: a module that does not is left
 * exactly as it is, host or device. */
static int uses_entry_points(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (LLVMGetFirstUse(f) && is_entry_point(LLVMGetValueName(f)))
      return 1;
  return 0;
}

int zy_start_module(LLVMModuleRef m, int optimizing) {
  if (!uses_entry_points(m))
    return 0;
  int device = zy_device_module(m);
  if (!optimizing && !device)
    return 0; /* at -O0 nothing is inlined: the functions are the copies */
  zy_registry_protect(m);
  ZyVec calls = {0};
  collect_calls(m, &calls);
  for (size_t i = 0; i < calls.len; i++) {
    LLVMValueRef call = calls.data[i];
    if (!differentiates(LLVMGetValueName(LLVMGetCalledValue(call))))
      continue;
    LLVMValueRef fn = zy_abi_target(call);
    if (fn && !LLVMIsDeclaration(fn))
      zy_take_snapshot(fn);
  }
  zy_vec_free(&calls);
  return 1;
}

int zy_run_on_module(LLVMModuleRef m) {
  if (!uses_entry_points(m)) {
    check_leftover_names(m); /* reads only */
    return 0;
  }
  /* The runtimes register their call handlers with the engine. */
  zy_blas_register();
  zy_mpi_register();
  zy_parallel_register();
  Driver d = {.zm = {.mod = m, .ctx = LLVMGetModuleContext(m)}};
  ZyModule *zm = &d.zm;
  int changed = 1;
  ZyDeclAttrs *decl_attrs = zy_llvm_decl_attrs_save(m);
  ZyMap user = {0}; /* the program's functions, which AD leaves alone */
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && !strstr(LLVMGetValueName(f), ".zymase."))
      zy_map_put(&user, f, f);
  zy_registry_scan(m);
  zy_snapshot_bind(m);
  check_function_like(m);
  ZyVec calls = {0}, entries = {0};
  collect_calls(m, &calls);
  for (size_t i = 0; i < calls.len; i++) {
    LLVMValueRef f = LLVMGetBasicBlockParent(
        LLVMGetInstructionParent(calls.data[i]));
    ZyVec *v = zy_map_get(&d.by_func, f);
    if (!v)
      zy_map_put(&d.by_func, f, v = calloc(1, sizeof *v));
    zy_vec_push(v, calls.data[i]);
    LLVMValueRef callee = LLVMGetCalledValue(calls.data[i]);
    if (!zy_vec_contains(&entries, callee))
      zy_vec_push(&entries, callee);
  }
  zm->nested_ad = nested_ad(&d, &calls);
  /* In module order; a lowered call is erased (lower() knows it by its
   * state and never reads it again). */
  for (size_t i = 0; i < calls.len; i++)
    lower(&d, calls.data[i]);
  zy_check_split_pairs(zm);
  for (size_t i = 0; i < entries.len; i++) {
    LLVMValueRef f = entries.data[i];
    if (!LLVMGetFirstUse(f) && LLVMIsDeclaration(f))
      LLVMDeleteFunction(f);
  }
  for (size_t i = 0; i < d.by_func.order.len; i++) {
    ZyVec *v = zy_map_get(&d.by_func, d.by_func.order.data[i]);
    zy_vec_free(v);
    free(v);
  }
  zy_map_free(&d.by_func);
  zy_map_free(&d.state);
  zy_vec_free(&d.cycles);
  zy_vec_free(&calls);
  zy_vec_free(&entries);
  check_leftover_names(m);
  zy_release_snapshots(m);
  zy_gpu_math_finish(m, &user);
  zy_map_free(&user);
  zy_llvm_decl_attrs_restore(decl_attrs);
  for (size_t i = 0; i < zm->grads.len; i++)
    zy_gradient_entry_free(zm->grads.data[i]);
  zy_vec_free(&zm->grads);
  zy_map_free(&zm->global_shadows);
  zy_abi_seeds_release(zm);
  if (zy_opt_print_stats()) {
    unsigned long long an, rounds, rules;
    zy_types_stats(&an, &rounds, &rules);
    fprintf(stderr,
            "zymase-stats: type-analyses %llu rounds %llu rules %llu "
            "tree-insertions %llu\n",
            an, rounds, rules, zy_tt_insertions());
  }
  return changed;
}
