; ModuleID = 'tests/kernels/matmul_tiled.cu'
source_filename = "tests/kernels/matmul_tiled.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@_ZZ12matmul_tiledE2As = internal unnamed_addr addrspace(3) global [16 x [16 x float]] undef, align 4
@_ZZ12matmul_tiledE2Bs = internal unnamed_addr addrspace(3) global [16 x [16 x float]] undef, align 4

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @matmul_tiled(i32 noundef %0, ptr nocapture noundef readonly %1, ptr nocapture noundef readonly %2, ptr nocapture noundef writeonly %3) local_unnamed_addr #0 !dbg !9 {
  %5 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !12
  %6 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.y(), !dbg !16
  %7 = tail call noundef range(i32 0, 65535) i32 @llvm.nvvm.read.ptx.sreg.ctaid.y(), !dbg !19
  %8 = shl nuw nsw i32 %7, 4, !dbg !22
  %9 = add nuw nsw i32 %8, %6, !dbg !23
  %10 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !24
  %11 = shl i32 %10, 4, !dbg !27
  %12 = add i32 %11, %5, !dbg !28
  %13 = icmp sgt i32 %0, 0, !dbg !29
  br i1 %13, label %14, label %56, !dbg !30

14:                                               ; preds = %4
  %15 = add nuw nsw i32 %0, 15
  %16 = lshr i32 %15, 4
  %17 = icmp ult i32 %9, %0
  %18 = mul nuw nsw i32 %9, %0
  %19 = zext nneg i32 %6 to i64
  %20 = zext nneg i32 %5 to i64
  %21 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2As to ptr), i64 0, i64 %19, i64 %20
  %22 = icmp slt i32 %12, %0
  %23 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2Bs to ptr), i64 0, i64 %19, i64 %20
  %24 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2As to ptr), i64 0, i64 %19, i64 0, !dbg !31
  %25 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2Bs to ptr), i64 0, i64 0, i64 %20
  %26 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2As to ptr), i64 0, i64 %19, i64 1
  %27 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2Bs to ptr), i64 0, i64 1, i64 %20
  %28 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2As to ptr), i64 0, i64 %19, i64 2
  %29 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2Bs to ptr), i64 0, i64 2, i64 %20
  %30 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2As to ptr), i64 0, i64 %19, i64 3
  %31 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2Bs to ptr), i64 0, i64 3, i64 %20
  %32 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2As to ptr), i64 0, i64 %19, i64 4
  %33 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2Bs to ptr), i64 0, i64 4, i64 %20
  %34 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2As to ptr), i64 0, i64 %19, i64 5
  %35 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2Bs to ptr), i64 0, i64 5, i64 %20
  %36 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2As to ptr), i64 0, i64 %19, i64 6
  %37 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2Bs to ptr), i64 0, i64 6, i64 %20
  %38 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2As to ptr), i64 0, i64 %19, i64 7
  %39 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2Bs to ptr), i64 0, i64 7, i64 %20
  %40 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2As to ptr), i64 0, i64 %19, i64 8
  %41 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2Bs to ptr), i64 0, i64 8, i64 %20
  %42 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2As to ptr), i64 0, i64 %19, i64 9
  %43 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2Bs to ptr), i64 0, i64 9, i64 %20
  %44 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2As to ptr), i64 0, i64 %19, i64 10
  %45 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2Bs to ptr), i64 0, i64 10, i64 %20
  %46 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2As to ptr), i64 0, i64 %19, i64 11
  %47 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2Bs to ptr), i64 0, i64 11, i64 %20
  %48 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2As to ptr), i64 0, i64 %19, i64 12
  %49 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2Bs to ptr), i64 0, i64 12, i64 %20
  %50 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2As to ptr), i64 0, i64 %19, i64 13
  %51 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2Bs to ptr), i64 0, i64 13, i64 %20
  %52 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2As to ptr), i64 0, i64 %19, i64 14
  %53 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2Bs to ptr), i64 0, i64 14, i64 %20
  %54 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2As to ptr), i64 0, i64 %19, i64 15
  %55 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @_ZZ12matmul_tiledE2Bs to ptr), i64 0, i64 15, i64 %20
  br label %61, !dbg !30

56:                                               ; preds = %84, %4
  %57 = phi float [ 0.000000e+00, %4 ], [ %149, %84 ], !dbg !32
  %58 = icmp slt i32 %9, %0, !dbg !33
  %59 = icmp slt i32 %12, %0
  %60 = and i1 %58, %59, !dbg !34
  br i1 %60, label %152, label %157, !dbg !34

61:                                               ; preds = %14, %84
  %62 = phi float [ 0.000000e+00, %14 ], [ %149, %84 ]
  %63 = phi i32 [ 0, %14 ], [ %150, %84 ]
  %64 = shl nsw i32 %63, 4, !dbg !35
  %65 = add nuw nsw i32 %64, %5, !dbg !36
  %66 = add nuw nsw i32 %64, %6, !dbg !37
  %67 = icmp slt i32 %65, %0
  %68 = select i1 %17, i1 %67, i1 false, !dbg !38
  br i1 %68, label %69, label %74, !dbg !38

69:                                               ; preds = %61
  %70 = add nuw nsw i32 %65, %18
  %71 = zext nneg i32 %70 to i64
  %72 = getelementptr inbounds float, ptr %1, i64 %71
  %73 = load float, ptr %72, align 4, !dbg !39, !tbaa !40
  br label %74, !dbg !44

74:                                               ; preds = %61, %69
  %75 = phi contract float [ %73, %69 ], [ 0.000000e+00, %61 ], !dbg !44
  store float %75, ptr %21, align 4, !dbg !45, !tbaa !40
  %76 = icmp slt i32 %66, %0, !dbg !46
  %77 = and i1 %22, %76, !dbg !47
  br i1 %77, label %78, label %84, !dbg !47

78:                                               ; preds = %74
  %79 = mul nuw nsw i32 %66, %0
  %80 = add nsw i32 %79, %12
  %81 = sext i32 %80 to i64
  %82 = getelementptr inbounds float, ptr %2, i64 %81
  %83 = load float, ptr %82, align 4, !dbg !48, !tbaa !40
  br label %84, !dbg !49

84:                                               ; preds = %74, %78
  %85 = phi contract float [ %83, %78 ], [ 0.000000e+00, %74 ], !dbg !49
  store float %85, ptr %23, align 4, !dbg !50, !tbaa !40
  tail call void @llvm.nvvm.barrier0(), !dbg !51
  %86 = load float, ptr %24, align 4, !dbg !31, !tbaa !40
  %87 = load float, ptr %25, align 4, !dbg !52, !tbaa !40
  %88 = fmul contract float %86, %87, !dbg !53
  %89 = fadd contract float %62, %88, !dbg !54
  %90 = load float, ptr %26, align 4, !dbg !31, !tbaa !40
  %91 = load float, ptr %27, align 4, !dbg !52, !tbaa !40
  %92 = fmul contract float %90, %91, !dbg !53
  %93 = fadd contract float %89, %92, !dbg !54
  %94 = load float, ptr %28, align 4, !dbg !31, !tbaa !40
  %95 = load float, ptr %29, align 4, !dbg !52, !tbaa !40
  %96 = fmul contract float %94, %95, !dbg !53
  %97 = fadd contract float %93, %96, !dbg !54
  %98 = load float, ptr %30, align 4, !dbg !31, !tbaa !40
  %99 = load float, ptr %31, align 4, !dbg !52, !tbaa !40
  %100 = fmul contract float %98, %99, !dbg !53
  %101 = fadd contract float %97, %100, !dbg !54
  %102 = load float, ptr %32, align 4, !dbg !31, !tbaa !40
  %103 = load float, ptr %33, align 4, !dbg !52, !tbaa !40
  %104 = fmul contract float %102, %103, !dbg !53
  %105 = fadd contract float %101, %104, !dbg !54
  %106 = load float, ptr %34, align 4, !dbg !31, !tbaa !40
  %107 = load float, ptr %35, align 4, !dbg !52, !tbaa !40
  %108 = fmul contract float %106, %107, !dbg !53
  %109 = fadd contract float %105, %108, !dbg !54
  %110 = load float, ptr %36, align 4, !dbg !31, !tbaa !40
  %111 = load float, ptr %37, align 4, !dbg !52, !tbaa !40
  %112 = fmul contract float %110, %111, !dbg !53
  %113 = fadd contract float %109, %112, !dbg !54
  %114 = load float, ptr %38, align 4, !dbg !31, !tbaa !40
  %115 = load float, ptr %39, align 4, !dbg !52, !tbaa !40
  %116 = fmul contract float %114, %115, !dbg !53
  %117 = fadd contract float %113, %116, !dbg !54
  %118 = load float, ptr %40, align 4, !dbg !31, !tbaa !40
  %119 = load float, ptr %41, align 4, !dbg !52, !tbaa !40
  %120 = fmul contract float %118, %119, !dbg !53
  %121 = fadd contract float %117, %120, !dbg !54
  %122 = load float, ptr %42, align 4, !dbg !31, !tbaa !40
  %123 = load float, ptr %43, align 4, !dbg !52, !tbaa !40
  %124 = fmul contract float %122, %123, !dbg !53
  %125 = fadd contract float %121, %124, !dbg !54
  %126 = load float, ptr %44, align 4, !dbg !31, !tbaa !40
  %127 = load float, ptr %45, align 4, !dbg !52, !tbaa !40
  %128 = fmul contract float %126, %127, !dbg !53
  %129 = fadd contract float %125, %128, !dbg !54
  %130 = load float, ptr %46, align 4, !dbg !31, !tbaa !40
  %131 = load float, ptr %47, align 4, !dbg !52, !tbaa !40
  %132 = fmul contract float %130, %131, !dbg !53
  %133 = fadd contract float %129, %132, !dbg !54
  %134 = load float, ptr %48, align 4, !dbg !31, !tbaa !40
  %135 = load float, ptr %49, align 4, !dbg !52, !tbaa !40
  %136 = fmul contract float %134, %135, !dbg !53
  %137 = fadd contract float %133, %136, !dbg !54
  %138 = load float, ptr %50, align 4, !dbg !31, !tbaa !40
  %139 = load float, ptr %51, align 4, !dbg !52, !tbaa !40
  %140 = fmul contract float %138, %139, !dbg !53
  %141 = fadd contract float %137, %140, !dbg !54
  %142 = load float, ptr %52, align 4, !dbg !31, !tbaa !40
  %143 = load float, ptr %53, align 4, !dbg !52, !tbaa !40
  %144 = fmul contract float %142, %143, !dbg !53
  %145 = fadd contract float %141, %144, !dbg !54
  %146 = load float, ptr %54, align 4, !dbg !31, !tbaa !40
  %147 = load float, ptr %55, align 4, !dbg !52, !tbaa !40
  %148 = fmul contract float %146, %147, !dbg !53
  %149 = fadd contract float %145, %148, !dbg !54
  tail call void @llvm.nvvm.barrier0(), !dbg !55
  %150 = add nuw nsw i32 %63, 1, !dbg !56
  %151 = icmp eq i32 %150, %16, !dbg !29
  br i1 %151, label %56, label %61, !dbg !30, !llvm.loop !57

152:                                              ; preds = %56
  %153 = mul nsw i32 %9, %0
  %154 = add nsw i32 %153, %12
  %155 = sext i32 %154 to i64
  %156 = getelementptr inbounds float, ptr %3, i64 %155
  store float %57, ptr %156, align 4, !dbg !60, !tbaa !40
  br label %157, !dbg !61

157:                                              ; preds = %152, %56
  ret void, !dbg !62
}

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.barrier0() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.y() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.y() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #2

attributes #0 = { convergent mustprogress norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_80" "target-features"="+ptx42,+ptx70,+sm_80" "uniform-work-group-size"="true" }
attributes #1 = { convergent nocallback nounwind }
attributes #2 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.dbg.cu = !{!0}
!nvvm.annotations = !{!2}
!llvm.module.flags = !{!3, !4, !5, !6, !7}
!llvm.ident = !{!8}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "Debian clang version 19.1.7 (3~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: DebugDirectivesOnly, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "tests/kernels/matmul_tiled.cu", directory: ".")
!2 = !{ptr @matmul_tiled, !"kernel", i32 1}
!3 = !{i32 7, !"Dwarf Version", i32 2}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!5 = !{i32 1, !"wchar_size", i32 4}
!6 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!7 = !{i32 7, !"frame-pointer", i32 2}
!8 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!9 = distinct !DISubprogram(name: "matmul_tiled", scope: !1, file: !1, line: 5, type: !10, scopeLine: 6, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!10 = !DISubroutineType(types: !11)
!11 = !{}
!12 = !DILocation(line: 53, column: 3, scope: !13, inlinedAt: !15)
!13 = distinct !DISubprogram(name: "__fetch_builtin_x", scope: !14, file: !14, line: 53, type: !10, scopeLine: 53, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!14 = !DIFile(filename: "/usr/lib/llvm-19/lib/clang/19/include/__clang_cuda_builtin_vars.h", directory: "")
!15 = distinct !DILocation(line: 9, column: 14, scope: !9)
!16 = !DILocation(line: 54, column: 3, scope: !17, inlinedAt: !18)
!17 = distinct !DISubprogram(name: "__fetch_builtin_y", scope: !14, file: !14, line: 54, type: !10, scopeLine: 54, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!18 = distinct !DILocation(line: 9, column: 32, scope: !9)
!19 = !DILocation(line: 67, column: 3, scope: !20, inlinedAt: !21)
!20 = distinct !DISubprogram(name: "__fetch_builtin_y", scope: !14, file: !14, line: 67, type: !10, scopeLine: 67, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!21 = distinct !DILocation(line: 10, column: 15, scope: !9)
!22 = !DILocation(line: 10, column: 26, scope: !9)
!23 = !DILocation(line: 10, column: 33, scope: !9)
!24 = !DILocation(line: 66, column: 3, scope: !25, inlinedAt: !26)
!25 = distinct !DISubprogram(name: "__fetch_builtin_x", scope: !14, file: !14, line: 66, type: !10, scopeLine: 66, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!26 = distinct !DILocation(line: 11, column: 15, scope: !9)
!27 = !DILocation(line: 11, column: 26, scope: !9)
!28 = !DILocation(line: 11, column: 33, scope: !9)
!29 = !DILocation(line: 13, column: 23, scope: !9)
!30 = !DILocation(line: 13, column: 5, scope: !9)
!31 = !DILocation(line: 20, column: 20, scope: !9)
!32 = !DILocation(line: 12, column: 11, scope: !9)
!33 = !DILocation(line: 23, column: 13, scope: !9)
!34 = !DILocation(line: 23, column: 17, scope: !9)
!35 = !DILocation(line: 14, column: 20, scope: !9)
!36 = !DILocation(line: 14, column: 27, scope: !9)
!37 = !DILocation(line: 15, column: 27, scope: !9)
!38 = !DILocation(line: 16, column: 31, scope: !9)
!39 = !DILocation(line: 16, column: 44, scope: !9)
!40 = !{!41, !41, i64 0}
!41 = !{!"float", !42, i64 0}
!42 = !{!"omnipotent char", !43, i64 0}
!43 = !{!"Simple C++ TBAA"}
!44 = !DILocation(line: 16, column: 22, scope: !9)
!45 = !DILocation(line: 16, column: 20, scope: !9)
!46 = !DILocation(line: 17, column: 26, scope: !9)
!47 = !DILocation(line: 17, column: 30, scope: !9)
!48 = !DILocation(line: 17, column: 44, scope: !9)
!49 = !DILocation(line: 17, column: 22, scope: !9)
!50 = !DILocation(line: 17, column: 20, scope: !9)
!51 = !DILocation(line: 18, column: 9, scope: !9)
!52 = !DILocation(line: 20, column: 32, scope: !9)
!53 = !DILocation(line: 20, column: 30, scope: !9)
!54 = !DILocation(line: 20, column: 17, scope: !9)
!55 = !DILocation(line: 21, column: 9, scope: !9)
!56 = !DILocation(line: 13, column: 48, scope: !9)
!57 = distinct !{!57, !30, !58, !59}
!58 = !DILocation(line: 22, column: 5, scope: !9)
!59 = !{!"llvm.loop.mustprogress"}
!60 = !DILocation(line: 24, column: 26, scope: !9)
!61 = !DILocation(line: 24, column: 9, scope: !9)
!62 = !DILocation(line: 25, column: 1, scope: !9)
