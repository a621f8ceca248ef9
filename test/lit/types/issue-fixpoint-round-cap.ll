; types/issue-fixpoint-round-cap.ll - facts flowing backward through a long chain of values reach its start (KNOWN BUG: the fixpoint stops silently after 64 rounds and backward facts move one instruction per round, so the start of a 70-long chain stays unknown; this test fails until fixed).
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-types>' -disable-output %s 2>&1 | %FileCheck %s

; The i64 at the end is a double (bitcast), so is every freeze before it
; and the argument.  Observed: %v0 .. %v6 are {} (the cap is hit).
; CHECK-LABEL: types of 'chain':
; CHECK-NEXT:  i64 %v0 : {[-1]:Float@double}
; CHECK-NEXT:  %v1 = freeze i64 %v0 : {[-1]:Float@double}
define double @chain(i64 %v0) {
  %v1 = freeze i64 %v0
  %v2 = freeze i64 %v1
  %v3 = freeze i64 %v2
  %v4 = freeze i64 %v3
  %v5 = freeze i64 %v4
  %v6 = freeze i64 %v5
  %v7 = freeze i64 %v6
  %v8 = freeze i64 %v7
  %v9 = freeze i64 %v8
  %v10 = freeze i64 %v9
  %v11 = freeze i64 %v10
  %v12 = freeze i64 %v11
  %v13 = freeze i64 %v12
  %v14 = freeze i64 %v13
  %v15 = freeze i64 %v14
  %v16 = freeze i64 %v15
  %v17 = freeze i64 %v16
  %v18 = freeze i64 %v17
  %v19 = freeze i64 %v18
  %v20 = freeze i64 %v19
  %v21 = freeze i64 %v20
  %v22 = freeze i64 %v21
  %v23 = freeze i64 %v22
  %v24 = freeze i64 %v23
  %v25 = freeze i64 %v24
  %v26 = freeze i64 %v25
  %v27 = freeze i64 %v26
  %v28 = freeze i64 %v27
  %v29 = freeze i64 %v28
  %v30 = freeze i64 %v29
  %v31 = freeze i64 %v30
  %v32 = freeze i64 %v31
  %v33 = freeze i64 %v32
  %v34 = freeze i64 %v33
  %v35 = freeze i64 %v34
  %v36 = freeze i64 %v35
  %v37 = freeze i64 %v36
  %v38 = freeze i64 %v37
  %v39 = freeze i64 %v38
  %v40 = freeze i64 %v39
  %v41 = freeze i64 %v40
  %v42 = freeze i64 %v41
  %v43 = freeze i64 %v42
  %v44 = freeze i64 %v43
  %v45 = freeze i64 %v44
  %v46 = freeze i64 %v45
  %v47 = freeze i64 %v46
  %v48 = freeze i64 %v47
  %v49 = freeze i64 %v48
  %v50 = freeze i64 %v49
  %v51 = freeze i64 %v50
  %v52 = freeze i64 %v51
  %v53 = freeze i64 %v52
  %v54 = freeze i64 %v53
  %v55 = freeze i64 %v54
  %v56 = freeze i64 %v55
  %v57 = freeze i64 %v56
  %v58 = freeze i64 %v57
  %v59 = freeze i64 %v58
  %v60 = freeze i64 %v59
  %v61 = freeze i64 %v60
  %v62 = freeze i64 %v61
  %v63 = freeze i64 %v62
  %v64 = freeze i64 %v63
  %v65 = freeze i64 %v64
  %v66 = freeze i64 %v65
  %v67 = freeze i64 %v66
  %v68 = freeze i64 %v67
  %v69 = freeze i64 %v68
  %v70 = freeze i64 %v69
  %d = bitcast i64 %v70 to double
  ret double %d
}
