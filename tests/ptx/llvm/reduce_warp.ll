; ModuleID = 'tests/kernels/reduce_warp.cu'
source_filename = "tests/kernels/reduce_warp.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: convergent mustprogress norecurse nounwind memory(argmem: readwrite, inaccessiblemem: readwrite)
define dso_local void @reduce_warp(i32 noundef %0, ptr nocapture noundef readonly %1, ptr nocapture noundef %2) local_unnamed_addr #0 !dbg !9 {
  %4 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !12
  %5 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !16
  %6 = mul i32 %4, %5, !dbg !19
  %7 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !20
  %8 = add i32 %6, %7, !dbg !23
  %9 = icmp slt i32 %8, %0, !dbg !24
  br i1 %9, label %10, label %14, !dbg !25

10:                                               ; preds = %3
  %11 = sext i32 %8 to i64
  %12 = getelementptr inbounds float, ptr %1, i64 %11
  %13 = load float, ptr %12, align 4, !dbg !26, !tbaa !27
  br label %14, !dbg !25

14:                                               ; preds = %3, %10
  %15 = phi contract float [ %13, %10 ], [ 0.000000e+00, %3 ], !dbg !25
  %16 = tail call contract noundef float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %15, i32 16, i32 31), !dbg !31
  %17 = fadd contract float %15, %16, !dbg !35
  %18 = tail call contract noundef float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %17, i32 8, i32 31), !dbg !31
  %19 = fadd contract float %17, %18, !dbg !35
  %20 = tail call contract noundef float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %19, i32 4, i32 31), !dbg !31
  %21 = fadd contract float %19, %20, !dbg !35
  %22 = tail call contract noundef float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %21, i32 2, i32 31), !dbg !31
  %23 = fadd contract float %21, %22, !dbg !35
  %24 = tail call contract noundef float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %23, i32 1, i32 31), !dbg !31
  %25 = and i32 %7, 31, !dbg !36
  %26 = icmp eq i32 %25, 0, !dbg !37
  br i1 %26, label %27, label %30, !dbg !38

27:                                               ; preds = %14
  %28 = fadd contract float %23, %24, !dbg !35
  %29 = atomicrmw fadd ptr %2, float %28 seq_cst, align 4, !dbg !39
  br label %30, !dbg !42

30:                                               ; preds = %27, %14
  ret void, !dbg !43
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

; Function Attrs: convergent nocallback nounwind memory(inaccessiblemem: readwrite)
declare float @llvm.nvvm.shfl.sync.down.f32(i32, float, i32, i32) #2

attributes #0 = { convergent mustprogress norecurse nounwind memory(argmem: readwrite, inaccessiblemem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_80" "target-features"="+ptx42,+ptx70,+sm_80" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { convergent nocallback nounwind memory(inaccessiblemem: readwrite) }

!llvm.dbg.cu = !{!0}
!nvvm.annotations = !{!2}
!llvm.module.flags = !{!3, !4, !5, !6, !7}
!llvm.ident = !{!8}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "Debian clang version 19.1.7 (3~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: DebugDirectivesOnly, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "tests/kernels/reduce_warp.cu", directory: ".")
!2 = !{ptr @reduce_warp, !"kernel", i32 1}
!3 = !{i32 7, !"Dwarf Version", i32 2}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!5 = !{i32 1, !"wchar_size", i32 4}
!6 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!7 = !{i32 7, !"frame-pointer", i32 2}
!8 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!9 = distinct !DISubprogram(name: "reduce_warp", scope: !1, file: !1, line: 4, type: !10, scopeLine: 5, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!10 = !DISubroutineType(types: !11)
!11 = !{}
!12 = !DILocation(line: 66, column: 3, scope: !13, inlinedAt: !15)
!13 = distinct !DISubprogram(name: "__fetch_builtin_x", scope: !14, file: !14, line: 66, type: !10, scopeLine: 66, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!14 = !DIFile(filename: "/usr/lib/llvm-19/lib/clang/19/include/__clang_cuda_builtin_vars.h", directory: "")
!15 = distinct !DILocation(line: 6, column: 13, scope: !9)
!16 = !DILocation(line: 79, column: 3, scope: !17, inlinedAt: !18)
!17 = distinct !DISubprogram(name: "__fetch_builtin_x", scope: !14, file: !14, line: 79, type: !10, scopeLine: 79, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!18 = distinct !DILocation(line: 6, column: 26, scope: !9)
!19 = !DILocation(line: 6, column: 24, scope: !9)
!20 = !DILocation(line: 53, column: 3, scope: !21, inlinedAt: !22)
!21 = distinct !DISubprogram(name: "__fetch_builtin_x", scope: !14, file: !14, line: 53, type: !10, scopeLine: 53, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!22 = distinct !DILocation(line: 6, column: 39, scope: !9)
!23 = !DILocation(line: 6, column: 37, scope: !9)
!24 = !DILocation(line: 7, column: 18, scope: !9)
!25 = !DILocation(line: 7, column: 15, scope: !9)
!26 = !DILocation(line: 7, column: 25, scope: !9)
!27 = !{!28, !28, i64 0}
!28 = !{!"float", !29, i64 0}
!29 = !{!"omnipotent char", !30, i64 0}
!30 = !{!"Simple C++ TBAA"}
!31 = !DILocation(line: 52, column: 12, scope: !32, inlinedAt: !34)
!32 = distinct !DISubprogram(name: "__shfl_down_sync", scope: !33, file: !33, line: 51, type: !10, scopeLine: 51, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!33 = !DIFile(filename: "kerncast-prelude/cuda_prelude.h", directory: "")
!34 = distinct !DILocation(line: 9, column: 14, scope: !9)
!35 = !DILocation(line: 9, column: 11, scope: !9)
!36 = !DILocation(line: 10, column: 22, scope: !9)
!37 = !DILocation(line: 10, column: 28, scope: !9)
!38 = !DILocation(line: 10, column: 9, scope: !9)
!39 = !DILocation(line: 74, column: 54, scope: !40, inlinedAt: !41)
!40 = distinct !DISubprogram(name: "atomicAdd", scope: !33, file: !33, line: 74, type: !10, scopeLine: 74, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!41 = distinct !DILocation(line: 11, column: 9, scope: !9)
!42 = !DILocation(line: 11, column: 9, scope: !9)
!43 = !DILocation(line: 12, column: 1, scope: !9)
