; ModuleID = 'tests/kernels/pb_gemm.cu'
source_filename = "tests/kernels/pb_gemm.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: mustprogress nofree norecurse nosync nounwind memory(argmem: readwrite)
define dso_local void @pb_gemm(i32 noundef %0, i32 noundef %1, i32 noundef %2, float noundef %3, float noundef %4, ptr nocapture noundef readonly %5, ptr nocapture noundef readonly %6, ptr nocapture noundef %7) local_unnamed_addr #0 !dbg !9 {
  %9 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !12
  %10 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !16
  %11 = mul i32 %9, %10, !dbg !19
  %12 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !20
  %13 = add i32 %11, %12, !dbg !23
  %14 = tail call noundef range(i32 0, 65535) i32 @llvm.nvvm.read.ptx.sreg.ctaid.y(), !dbg !24
  %15 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.y(), !dbg !27
  %16 = mul nuw nsw i32 %14, %15, !dbg !30
  %17 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.y(), !dbg !31
  %18 = add nuw nsw i32 %16, %17, !dbg !34
  %19 = icmp slt i32 %18, %0, !dbg !35
  %20 = icmp slt i32 %13, %1
  %21 = and i1 %19, %20, !dbg !36
  br i1 %21, label %22, label %120, !dbg !36

22:                                               ; preds = %8
  %23 = mul nsw i32 %18, %1, !dbg !37
  %24 = add nsw i32 %23, %13, !dbg !38
  %25 = sext i32 %24 to i64, !dbg !39
  %26 = getelementptr inbounds float, ptr %7, i64 %25, !dbg !39
  %27 = load float, ptr %26, align 4, !dbg !39, !tbaa !40
  %28 = fmul contract float %27, %4, !dbg !44
  %29 = icmp sgt i32 %2, 0, !dbg !45
  br i1 %29, label %30, label %60, !dbg !46

30:                                               ; preds = %22
  %31 = mul nuw nsw i32 %18, %2
  %32 = and i32 %2, 3, !dbg !46
  %33 = icmp ult i32 %2, 4, !dbg !46
  br i1 %33, label %36, label %34, !dbg !46

34:                                               ; preds = %30
  %35 = and i32 %2, 2147483644, !dbg !46
  br label %62, !dbg !46

36:                                               ; preds = %62, %30
  %37 = phi float [ poison, %30 ], [ %116, %62 ]
  %38 = phi i32 [ 0, %30 ], [ %117, %62 ]
  %39 = phi float [ %28, %30 ], [ %116, %62 ]
  %40 = icmp eq i32 %32, 0, !dbg !46
  br i1 %40, label %60, label %41, !dbg !46

41:                                               ; preds = %36, %41
  %42 = phi i32 [ %57, %41 ], [ %38, %36 ]
  %43 = phi float [ %56, %41 ], [ %39, %36 ]
  %44 = phi i32 [ %58, %41 ], [ 0, %36 ]
  %45 = add nuw nsw i32 %42, %31, !dbg !47
  %46 = zext nneg i32 %45 to i64, !dbg !48
  %47 = getelementptr inbounds float, ptr %5, i64 %46, !dbg !48
  %48 = load float, ptr %47, align 4, !dbg !48, !tbaa !40
  %49 = fmul contract float %48, %3, !dbg !49
  %50 = mul nsw i32 %42, %1, !dbg !50
  %51 = add nsw i32 %50, %13, !dbg !51
  %52 = sext i32 %51 to i64, !dbg !52
  %53 = getelementptr inbounds float, ptr %6, i64 %52, !dbg !52
  %54 = load float, ptr %53, align 4, !dbg !52, !tbaa !40
  %55 = fmul contract float %49, %54, !dbg !53
  %56 = fadd contract float %43, %55, !dbg !54
  %57 = add nuw nsw i32 %42, 1, !dbg !55
  %58 = add i32 %44, 1, !dbg !46
  %59 = icmp eq i32 %58, %32, !dbg !46
  br i1 %59, label %60, label %41, !dbg !46, !llvm.loop !56

60:                                               ; preds = %36, %41, %22
  %61 = phi float [ %28, %22 ], [ %37, %36 ], [ %56, %41 ], !dbg !58
  store float %61, ptr %26, align 4, !dbg !59, !tbaa !40
  br label %120, !dbg !60

62:                                               ; preds = %62, %34
  %63 = phi i32 [ 0, %34 ], [ %117, %62 ]
  %64 = phi float [ %28, %34 ], [ %116, %62 ]
  %65 = phi i32 [ 0, %34 ], [ %118, %62 ]
  %66 = add nuw nsw i32 %63, %31, !dbg !47
  %67 = zext nneg i32 %66 to i64, !dbg !48
  %68 = getelementptr inbounds float, ptr %5, i64 %67, !dbg !48
  %69 = load float, ptr %68, align 4, !dbg !48, !tbaa !40
  %70 = fmul contract float %69, %3, !dbg !49
  %71 = mul nsw i32 %63, %1, !dbg !50
  %72 = add nsw i32 %71, %13, !dbg !51
  %73 = sext i32 %72 to i64, !dbg !52
  %74 = getelementptr inbounds float, ptr %6, i64 %73, !dbg !52
  %75 = load float, ptr %74, align 4, !dbg !52, !tbaa !40
  %76 = fmul contract float %70, %75, !dbg !53
  %77 = fadd contract float %64, %76, !dbg !54
  %78 = or disjoint i32 %63, 1, !dbg !55
  %79 = add nuw nsw i32 %78, %31, !dbg !47
  %80 = zext nneg i32 %79 to i64, !dbg !48
  %81 = getelementptr inbounds float, ptr %5, i64 %80, !dbg !48
  %82 = load float, ptr %81, align 4, !dbg !48, !tbaa !40
  %83 = fmul contract float %82, %3, !dbg !49
  %84 = mul nsw i32 %78, %1, !dbg !50
  %85 = add nsw i32 %84, %13, !dbg !51
  %86 = sext i32 %85 to i64, !dbg !52
  %87 = getelementptr inbounds float, ptr %6, i64 %86, !dbg !52
  %88 = load float, ptr %87, align 4, !dbg !52, !tbaa !40
  %89 = fmul contract float %83, %88, !dbg !53
  %90 = fadd contract float %77, %89, !dbg !54
  %91 = or disjoint i32 %63, 2, !dbg !55
  %92 = add nuw nsw i32 %91, %31, !dbg !47
  %93 = zext nneg i32 %92 to i64, !dbg !48
  %94 = getelementptr inbounds float, ptr %5, i64 %93, !dbg !48
  %95 = load float, ptr %94, align 4, !dbg !48, !tbaa !40
  %96 = fmul contract float %95, %3, !dbg !49
  %97 = mul nsw i32 %91, %1, !dbg !50
  %98 = add nsw i32 %97, %13, !dbg !51
  %99 = sext i32 %98 to i64, !dbg !52
  %100 = getelementptr inbounds float, ptr %6, i64 %99, !dbg !52
  %101 = load float, ptr %100, align 4, !dbg !52, !tbaa !40
  %102 = fmul contract float %96, %101, !dbg !53
  %103 = fadd contract float %90, %102, !dbg !54
  %104 = or disjoint i32 %63, 3, !dbg !55
  %105 = add nuw nsw i32 %104, %31, !dbg !47
  %106 = zext nneg i32 %105 to i64, !dbg !48
  %107 = getelementptr inbounds float, ptr %5, i64 %106, !dbg !48
  %108 = load float, ptr %107, align 4, !dbg !48, !tbaa !40
  %109 = fmul contract float %108, %3, !dbg !49
  %110 = mul nsw i32 %104, %1, !dbg !50
  %111 = add nsw i32 %110, %13, !dbg !51
  %112 = sext i32 %111 to i64, !dbg !52
  %113 = getelementptr inbounds float, ptr %6, i64 %112, !dbg !52
  %114 = load float, ptr %113, align 4, !dbg !52, !tbaa !40
  %115 = fmul contract float %109, %114, !dbg !53
  %116 = fadd contract float %103, %115, !dbg !54
  %117 = add nuw nsw i32 %63, 4, !dbg !55
  %118 = add i32 %65, 4, !dbg !46
  %119 = icmp eq i32 %118, %35, !dbg !46
  br i1 %119, label %36, label %62, !dbg !46, !llvm.loop !61

120:                                              ; preds = %60, %8
  ret void, !dbg !64
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.y() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.y() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.y() #1

attributes #0 = { mustprogress nofree norecurse nosync nounwind memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_80" "target-features"="+ptx42,+ptx70,+sm_80" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.dbg.cu = !{!0}
!nvvm.annotations = !{!2}
!llvm.module.flags = !{!3, !4, !5, !6, !7}
!llvm.ident = !{!8}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "Debian clang version 19.1.7 (3~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: DebugDirectivesOnly, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "tests/kernels/pb_gemm.cu", directory: ".")
!2 = !{ptr @pb_gemm, !"kernel", i32 1}
!3 = !{i32 7, !"Dwarf Version", i32 2}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!5 = !{i32 1, !"wchar_size", i32 4}
!6 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!7 = !{i32 7, !"frame-pointer", i32 2}
!8 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!9 = distinct !DISubprogram(name: "pb_gemm", scope: !1, file: !1, line: 4, type: !10, scopeLine: 6, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!10 = !DISubroutineType(types: !11)
!11 = !{}
!12 = !DILocation(line: 66, column: 3, scope: !13, inlinedAt: !15)
!13 = distinct !DISubprogram(name: "__fetch_builtin_x", scope: !14, file: !14, line: 66, type: !10, scopeLine: 66, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!14 = !DIFile(filename: "/usr/lib/llvm-19/lib/clang/19/include/__clang_cuda_builtin_vars.h", directory: "")
!15 = distinct !DILocation(line: 7, column: 13, scope: !9)
!16 = !DILocation(line: 79, column: 3, scope: !17, inlinedAt: !18)
!17 = distinct !DISubprogram(name: "__fetch_builtin_x", scope: !14, file: !14, line: 79, type: !10, scopeLine: 79, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!18 = distinct !DILocation(line: 7, column: 26, scope: !9)
!19 = !DILocation(line: 7, column: 24, scope: !9)
!20 = !DILocation(line: 53, column: 3, scope: !21, inlinedAt: !22)
!21 = distinct !DISubprogram(name: "__fetch_builtin_x", scope: !14, file: !14, line: 53, type: !10, scopeLine: 53, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!22 = distinct !DILocation(line: 7, column: 39, scope: !9)
!23 = !DILocation(line: 7, column: 37, scope: !9)
!24 = !DILocation(line: 67, column: 3, scope: !25, inlinedAt: !26)
!25 = distinct !DISubprogram(name: "__fetch_builtin_y", scope: !14, file: !14, line: 67, type: !10, scopeLine: 67, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!26 = distinct !DILocation(line: 8, column: 13, scope: !9)
!27 = !DILocation(line: 80, column: 3, scope: !28, inlinedAt: !29)
!28 = distinct !DISubprogram(name: "__fetch_builtin_y", scope: !14, file: !14, line: 80, type: !10, scopeLine: 80, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!29 = distinct !DILocation(line: 8, column: 26, scope: !9)
!30 = !DILocation(line: 8, column: 24, scope: !9)
!31 = !DILocation(line: 54, column: 3, scope: !32, inlinedAt: !33)
!32 = distinct !DISubprogram(name: "__fetch_builtin_y", scope: !14, file: !14, line: 54, type: !10, scopeLine: 54, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!33 = distinct !DILocation(line: 8, column: 39, scope: !9)
!34 = !DILocation(line: 8, column: 37, scope: !9)
!35 = !DILocation(line: 9, column: 11, scope: !9)
!36 = !DILocation(line: 9, column: 16, scope: !9)
!37 = !DILocation(line: 10, column: 25, scope: !9)
!38 = !DILocation(line: 10, column: 30, scope: !9)
!39 = !DILocation(line: 10, column: 21, scope: !9)
!40 = !{!41, !41, i64 0}
!41 = !{!"float", !42, i64 0}
!42 = !{!"omnipotent char", !43, i64 0}
!43 = !{!"Simple C++ TBAA"}
!44 = !DILocation(line: 10, column: 35, scope: !9)
!45 = !DILocation(line: 11, column: 27, scope: !9)
!46 = !DILocation(line: 11, column: 9, scope: !9)
!47 = !DILocation(line: 12, column: 37, scope: !9)
!48 = !DILocation(line: 12, column: 28, scope: !9)
!49 = !DILocation(line: 12, column: 26, scope: !9)
!50 = !DILocation(line: 12, column: 48, scope: !9)
!51 = !DILocation(line: 12, column: 53, scope: !9)
!52 = !DILocation(line: 12, column: 44, scope: !9)
!53 = !DILocation(line: 12, column: 42, scope: !9)
!54 = !DILocation(line: 12, column: 17, scope: !9)
!55 = !DILocation(line: 11, column: 33, scope: !9)
!56 = distinct !{!56, !57}
!57 = !{!"llvm.loop.unroll.disable"}
!58 = !DILocation(line: 0, scope: !9)
!59 = !DILocation(line: 13, column: 23, scope: !9)
!60 = !DILocation(line: 14, column: 5, scope: !9)
!61 = distinct !{!61, !46, !62, !63}
!62 = !DILocation(line: 12, column: 56, scope: !9)
!63 = !{!"llvm.loop.mustprogress"}
!64 = !DILocation(line: 15, column: 1, scope: !9)
