; ModuleID = 'tests/kernels/triangular.cu'
source_filename = "tests/kernels/triangular.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: mustprogress nofree norecurse nosync nounwind memory(argmem: readwrite)
define dso_local void @triangular(i32 noundef %0, ptr nocapture noundef readonly %1, ptr nocapture noundef readonly %2, ptr nocapture noundef writeonly %3) local_unnamed_addr #0 !dbg !9 {
  %5 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !12
  %6 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !16
  %7 = mul i32 %5, %6, !dbg !19
  %8 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !20
  %9 = add i32 %7, %8, !dbg !23
  %10 = icmp slt i32 %9, %0, !dbg !24
  br i1 %10, label %11, label %92, !dbg !25

11:                                               ; preds = %4
  %12 = icmp slt i32 %9, 0, !dbg !26
  br i1 %12, label %42, label %13, !dbg !27

13:                                               ; preds = %11
  %14 = mul nsw i32 %9, %0
  %15 = add i32 %8, %7, !dbg !27
  %16 = add i32 %15, 1, !dbg !27
  %17 = and i32 %16, 3, !dbg !27
  %18 = icmp ult i32 %9, 3, !dbg !27
  br i1 %18, label %21, label %19, !dbg !27

19:                                               ; preds = %13
  %20 = and i32 %16, -4, !dbg !27
  br label %46, !dbg !27

21:                                               ; preds = %46, %13
  %22 = phi float [ poison, %13 ], [ %88, %46 ]
  %23 = phi i32 [ 0, %13 ], [ %89, %46 ]
  %24 = phi float [ 0.000000e+00, %13 ], [ %88, %46 ]
  %25 = icmp eq i32 %17, 0, !dbg !27
  br i1 %25, label %42, label %26, !dbg !27

26:                                               ; preds = %21, %26
  %27 = phi i32 [ %39, %26 ], [ %23, %21 ]
  %28 = phi float [ %38, %26 ], [ %24, %21 ]
  %29 = phi i32 [ %40, %26 ], [ 0, %21 ]
  %30 = add nsw i32 %27, %14, !dbg !28
  %31 = sext i32 %30 to i64, !dbg !29
  %32 = getelementptr inbounds float, ptr %1, i64 %31, !dbg !29
  %33 = load float, ptr %32, align 4, !dbg !29, !tbaa !30
  %34 = zext nneg i32 %27 to i64, !dbg !34
  %35 = getelementptr inbounds float, ptr %2, i64 %34, !dbg !34
  %36 = load float, ptr %35, align 4, !dbg !34, !tbaa !30
  %37 = fmul contract float %33, %36, !dbg !35
  %38 = fadd contract float %28, %37, !dbg !36
  %39 = add nuw i32 %27, 1, !dbg !37
  %40 = add i32 %29, 1, !dbg !27
  %41 = icmp eq i32 %40, %17, !dbg !27
  br i1 %41, label %42, label %26, !dbg !27, !llvm.loop !38

42:                                               ; preds = %21, %26, %11
  %43 = phi float [ 0.000000e+00, %11 ], [ %22, %21 ], [ %38, %26 ], !dbg !40
  %44 = sext i32 %9 to i64, !dbg !41
  %45 = getelementptr inbounds float, ptr %3, i64 %44, !dbg !41
  store float %43, ptr %45, align 4, !dbg !42, !tbaa !30
  br label %92, !dbg !43

46:                                               ; preds = %46, %19
  %47 = phi i32 [ 0, %19 ], [ %89, %46 ]
  %48 = phi float [ 0.000000e+00, %19 ], [ %88, %46 ]
  %49 = phi i32 [ 0, %19 ], [ %90, %46 ]
  %50 = add nsw i32 %47, %14, !dbg !28
  %51 = sext i32 %50 to i64, !dbg !29
  %52 = getelementptr inbounds float, ptr %1, i64 %51, !dbg !29
  %53 = load float, ptr %52, align 4, !dbg !29, !tbaa !30
  %54 = zext nneg i32 %47 to i64, !dbg !34
  %55 = getelementptr inbounds float, ptr %2, i64 %54, !dbg !34
  %56 = load float, ptr %55, align 4, !dbg !34, !tbaa !30
  %57 = fmul contract float %53, %56, !dbg !35
  %58 = fadd contract float %48, %57, !dbg !36
  %59 = or disjoint i32 %47, 1, !dbg !37
  %60 = add nsw i32 %59, %14, !dbg !28
  %61 = sext i32 %60 to i64, !dbg !29
  %62 = getelementptr inbounds float, ptr %1, i64 %61, !dbg !29
  %63 = load float, ptr %62, align 4, !dbg !29, !tbaa !30
  %64 = zext nneg i32 %59 to i64, !dbg !34
  %65 = getelementptr inbounds float, ptr %2, i64 %64, !dbg !34
  %66 = load float, ptr %65, align 4, !dbg !34, !tbaa !30
  %67 = fmul contract float %63, %66, !dbg !35
  %68 = fadd contract float %58, %67, !dbg !36
  %69 = or disjoint i32 %47, 2, !dbg !37
  %70 = add nsw i32 %69, %14, !dbg !28
  %71 = sext i32 %70 to i64, !dbg !29
  %72 = getelementptr inbounds float, ptr %1, i64 %71, !dbg !29
  %73 = load float, ptr %72, align 4, !dbg !29, !tbaa !30
  %74 = zext nneg i32 %69 to i64, !dbg !34
  %75 = getelementptr inbounds float, ptr %2, i64 %74, !dbg !34
  %76 = load float, ptr %75, align 4, !dbg !34, !tbaa !30
  %77 = fmul contract float %73, %76, !dbg !35
  %78 = fadd contract float %68, %77, !dbg !36
  %79 = or disjoint i32 %47, 3, !dbg !37
  %80 = add nsw i32 %79, %14, !dbg !28
  %81 = sext i32 %80 to i64, !dbg !29
  %82 = getelementptr inbounds float, ptr %1, i64 %81, !dbg !29
  %83 = load float, ptr %82, align 4, !dbg !29, !tbaa !30
  %84 = zext nneg i32 %79 to i64, !dbg !34
  %85 = getelementptr inbounds float, ptr %2, i64 %84, !dbg !34
  %86 = load float, ptr %85, align 4, !dbg !34, !tbaa !30
  %87 = fmul contract float %83, %86, !dbg !35
  %88 = fadd contract float %78, %87, !dbg !36
  %89 = add nuw i32 %47, 4, !dbg !37
  %90 = add i32 %49, 4, !dbg !27
  %91 = icmp eq i32 %90, %20, !dbg !27
  br i1 %91, label %21, label %46, !dbg !27, !llvm.loop !44

92:                                               ; preds = %4, %42
  ret void, !dbg !43
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

attributes #0 = { mustprogress nofree norecurse nosync nounwind memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_80" "target-features"="+ptx42,+ptx70,+sm_80" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.dbg.cu = !{!0}
!nvvm.annotations = !{!2}
!llvm.module.flags = !{!3, !4, !5, !6, !7}
!llvm.ident = !{!8}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "Debian clang version 19.1.7 (3~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: DebugDirectivesOnly, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "tests/kernels/triangular.cu", directory: ".")
!2 = !{ptr @triangular, !"kernel", i32 1}
!3 = !{i32 7, !"Dwarf Version", i32 2}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!5 = !{i32 1, !"wchar_size", i32 4}
!6 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!7 = !{i32 7, !"frame-pointer", i32 2}
!8 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!9 = distinct !DISubprogram(name: "triangular", scope: !1, file: !1, line: 4, type: !10, scopeLine: 5, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
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
!24 = !DILocation(line: 7, column: 11, scope: !9)
!25 = !DILocation(line: 7, column: 9, scope: !9)
!26 = !DILocation(line: 10, column: 23, scope: !9)
!27 = !DILocation(line: 10, column: 5, scope: !9)
!28 = !DILocation(line: 11, column: 24, scope: !9)
!29 = !DILocation(line: 11, column: 16, scope: !9)
!30 = !{!31, !31, i64 0}
!31 = !{!"float", !32, i64 0}
!32 = !{!"omnipotent char", !33, i64 0}
!33 = !{!"Simple C++ TBAA"}
!34 = !DILocation(line: 11, column: 31, scope: !9)
!35 = !DILocation(line: 11, column: 29, scope: !9)
!36 = !DILocation(line: 11, column: 13, scope: !9)
!37 = !DILocation(line: 10, column: 29, scope: !9)
!38 = distinct !{!38, !39}
!39 = !{!"llvm.loop.unroll.disable"}
!40 = !DILocation(line: 0, scope: !9)
!41 = !DILocation(line: 12, column: 5, scope: !9)
!42 = !DILocation(line: 12, column: 10, scope: !9)
!43 = !DILocation(line: 13, column: 1, scope: !9)
!44 = distinct !{!44, !27, !45, !46}
!45 = !DILocation(line: 11, column: 34, scope: !9)
!46 = !{!"llvm.loop.mustprogress"}
