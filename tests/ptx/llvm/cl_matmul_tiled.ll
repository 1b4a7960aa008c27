; ModuleID = 'tests/kernels/cl_matmul_tiled.cl'
source_filename = "tests/kernels/cl_matmul_tiled.cl"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@cl_matmul_tiled.As = internal unnamed_addr addrspace(3) global [16 x [16 x float]] undef, align 4
@cl_matmul_tiled.Bs = internal unnamed_addr addrspace(3) global [16 x [16 x float]] undef, align 4

; Function Attrs: convergent noinline norecurse nounwind
define dso_local spir_kernel void @cl_matmul_tiled(i32 noundef %0, ptr addrspace(1) nocapture noundef readonly align 4 %1, ptr addrspace(1) nocapture noundef readonly align 4 %2, ptr addrspace(1) nocapture noundef writeonly align 4 %3) local_unnamed_addr #0 !dbg !9 !kernel_arg_addr_space !12 !kernel_arg_access_qual !13 !kernel_arg_type !14 !kernel_arg_base_type !14 !kernel_arg_type_qual !15 {
  %5 = tail call range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !16
  %6 = tail call range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.y(), !dbg !17
  %7 = tail call range(i32 0, 65535) i32 @llvm.nvvm.read.ptx.sreg.ctaid.y(), !dbg !18
  %8 = shl nuw nsw i32 %7, 4, !dbg !19
  %9 = add nuw nsw i32 %8, %6, !dbg !20
  %10 = tail call range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !21
  %11 = shl i32 %10, 4, !dbg !22
  %12 = add i32 %11, %5, !dbg !23
  %13 = icmp sgt i32 %0, 0, !dbg !24
  br i1 %13, label %14, label %56, !dbg !25

14:                                               ; preds = %4
  %15 = zext nneg i32 %6 to i64, !dbg !17
  %16 = zext nneg i32 %5 to i64, !dbg !16
  %17 = add nuw nsw i32 %0, 15
  %18 = lshr i32 %17, 4
  %19 = icmp ult i32 %9, %0
  %20 = mul nuw nsw i32 %9, %0
  %21 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.As, i64 0, i64 %15, i64 %16
  %22 = icmp slt i32 %12, %0
  %23 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.Bs, i64 0, i64 %15, i64 %16
  %24 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.As, i64 0, i64 %15, i64 0, !dbg !26
  %25 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.Bs, i64 0, i64 0, i64 %16
  %26 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.As, i64 0, i64 %15, i64 1
  %27 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.Bs, i64 0, i64 1, i64 %16
  %28 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.As, i64 0, i64 %15, i64 2
  %29 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.Bs, i64 0, i64 2, i64 %16
  %30 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.As, i64 0, i64 %15, i64 3
  %31 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.Bs, i64 0, i64 3, i64 %16
  %32 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.As, i64 0, i64 %15, i64 4
  %33 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.Bs, i64 0, i64 4, i64 %16
  %34 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.As, i64 0, i64 %15, i64 5
  %35 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.Bs, i64 0, i64 5, i64 %16
  %36 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.As, i64 0, i64 %15, i64 6
  %37 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.Bs, i64 0, i64 6, i64 %16
  %38 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.As, i64 0, i64 %15, i64 7
  %39 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.Bs, i64 0, i64 7, i64 %16
  %40 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.As, i64 0, i64 %15, i64 8
  %41 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.Bs, i64 0, i64 8, i64 %16
  %42 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.As, i64 0, i64 %15, i64 9
  %43 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.Bs, i64 0, i64 9, i64 %16
  %44 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.As, i64 0, i64 %15, i64 10
  %45 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.Bs, i64 0, i64 10, i64 %16
  %46 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.As, i64 0, i64 %15, i64 11
  %47 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.Bs, i64 0, i64 11, i64 %16
  %48 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.As, i64 0, i64 %15, i64 12
  %49 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.Bs, i64 0, i64 12, i64 %16
  %50 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.As, i64 0, i64 %15, i64 13
  %51 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.Bs, i64 0, i64 13, i64 %16
  %52 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.As, i64 0, i64 %15, i64 14
  %53 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.Bs, i64 0, i64 14, i64 %16
  %54 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.As, i64 0, i64 %15, i64 15
  %55 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @cl_matmul_tiled.Bs, i64 0, i64 15, i64 %16
  br label %61, !dbg !25

56:                                               ; preds = %84, %4
  %57 = phi float [ 0.000000e+00, %4 ], [ %133, %84 ], !dbg !27
  %58 = icmp slt i32 %9, %0, !dbg !28
  %59 = icmp slt i32 %12, %0
  %60 = and i1 %58, %59, !dbg !29
  br i1 %60, label %136, label %141, !dbg !29

61:                                               ; preds = %14, %84
  %62 = phi float [ 0.000000e+00, %14 ], [ %133, %84 ]
  %63 = phi i32 [ 0, %14 ], [ %134, %84 ]
  %64 = shl nsw i32 %63, 4, !dbg !30
  %65 = add nuw nsw i32 %64, %5, !dbg !31
  %66 = add nuw nsw i32 %64, %6, !dbg !32
  %67 = icmp slt i32 %65, %0
  %68 = select i1 %19, i1 %67, i1 false, !dbg !33
  br i1 %68, label %69, label %74, !dbg !33

69:                                               ; preds = %61
  %70 = add nuw nsw i32 %65, %20
  %71 = zext nneg i32 %70 to i64
  %72 = getelementptr inbounds float, ptr addrspace(1) %1, i64 %71
  %73 = load float, ptr addrspace(1) %72, align 4, !dbg !34, !tbaa !35
  br label %74, !dbg !39

74:                                               ; preds = %61, %69
  %75 = phi float [ %73, %69 ], [ 0.000000e+00, %61 ], !dbg !39
  store float %75, ptr addrspace(3) %21, align 4, !dbg !40, !tbaa !35
  %76 = icmp slt i32 %66, %0, !dbg !41
  %77 = and i1 %22, %76, !dbg !42
  br i1 %77, label %78, label %84, !dbg !42

78:                                               ; preds = %74
  %79 = mul nuw nsw i32 %66, %0
  %80 = add nsw i32 %79, %12
  %81 = sext i32 %80 to i64
  %82 = getelementptr inbounds float, ptr addrspace(1) %2, i64 %81
  %83 = load float, ptr addrspace(1) %82, align 4, !dbg !43, !tbaa !35
  br label %84, !dbg !44

84:                                               ; preds = %74, %78
  %85 = phi float [ %83, %78 ], [ 0.000000e+00, %74 ], !dbg !44
  store float %85, ptr addrspace(3) %23, align 4, !dbg !45, !tbaa !35
  tail call void @llvm.nvvm.barrier0(), !dbg !46
  %86 = load float, ptr addrspace(3) %24, align 4, !dbg !26, !tbaa !35
  %87 = load float, ptr addrspace(3) %25, align 4, !dbg !47, !tbaa !35
  %88 = tail call float @llvm.fmuladd.f32(float %86, float %87, float %62), !dbg !48
  %89 = load float, ptr addrspace(3) %26, align 4, !dbg !26, !tbaa !35
  %90 = load float, ptr addrspace(3) %27, align 4, !dbg !47, !tbaa !35
  %91 = tail call float @llvm.fmuladd.f32(float %89, float %90, float %88), !dbg !48
  %92 = load float, ptr addrspace(3) %28, align 4, !dbg !26, !tbaa !35
  %93 = load float, ptr addrspace(3) %29, align 4, !dbg !47, !tbaa !35
  %94 = tail call float @llvm.fmuladd.f32(float %92, float %93, float %91), !dbg !48
  %95 = load float, ptr addrspace(3) %30, align 4, !dbg !26, !tbaa !35
  %96 = load float, ptr addrspace(3) %31, align 4, !dbg !47, !tbaa !35
  %97 = tail call float @llvm.fmuladd.f32(float %95, float %96, float %94), !dbg !48
  %98 = load float, ptr addrspace(3) %32, align 4, !dbg !26, !tbaa !35
  %99 = load float, ptr addrspace(3) %33, align 4, !dbg !47, !tbaa !35
  %100 = tail call float @llvm.fmuladd.f32(float %98, float %99, float %97), !dbg !48
  %101 = load float, ptr addrspace(3) %34, align 4, !dbg !26, !tbaa !35
  %102 = load float, ptr addrspace(3) %35, align 4, !dbg !47, !tbaa !35
  %103 = tail call float @llvm.fmuladd.f32(float %101, float %102, float %100), !dbg !48
  %104 = load float, ptr addrspace(3) %36, align 4, !dbg !26, !tbaa !35
  %105 = load float, ptr addrspace(3) %37, align 4, !dbg !47, !tbaa !35
  %106 = tail call float @llvm.fmuladd.f32(float %104, float %105, float %103), !dbg !48
  %107 = load float, ptr addrspace(3) %38, align 4, !dbg !26, !tbaa !35
  %108 = load float, ptr addrspace(3) %39, align 4, !dbg !47, !tbaa !35
  %109 = tail call float @llvm.fmuladd.f32(float %107, float %108, float %106), !dbg !48
  %110 = load float, ptr addrspace(3) %40, align 4, !dbg !26, !tbaa !35
  %111 = load float, ptr addrspace(3) %41, align 4, !dbg !47, !tbaa !35
  %112 = tail call float @llvm.fmuladd.f32(float %110, float %111, float %109), !dbg !48
  %113 = load float, ptr addrspace(3) %42, align 4, !dbg !26, !tbaa !35
  %114 = load float, ptr addrspace(3) %43, align 4, !dbg !47, !tbaa !35
  %115 = tail call float @llvm.fmuladd.f32(float %113, float %114, float %112), !dbg !48
  %116 = load float, ptr addrspace(3) %44, align 4, !dbg !26, !tbaa !35
  %117 = load float, ptr addrspace(3) %45, align 4, !dbg !47, !tbaa !35
  %118 = tail call float @llvm.fmuladd.f32(float %116, float %117, float %115), !dbg !48
  %119 = load float, ptr addrspace(3) %46, align 4, !dbg !26, !tbaa !35
  %120 = load float, ptr addrspace(3) %47, align 4, !dbg !47, !tbaa !35
  %121 = tail call float @llvm.fmuladd.f32(float %119, float %120, float %118), !dbg !48
  %122 = load float, ptr addrspace(3) %48, align 4, !dbg !26, !tbaa !35
  %123 = load float, ptr addrspace(3) %49, align 4, !dbg !47, !tbaa !35
  %124 = tail call float @llvm.fmuladd.f32(float %122, float %123, float %121), !dbg !48
  %125 = load float, ptr addrspace(3) %50, align 4, !dbg !26, !tbaa !35
  %126 = load float, ptr addrspace(3) %51, align 4, !dbg !47, !tbaa !35
  %127 = tail call float @llvm.fmuladd.f32(float %125, float %126, float %124), !dbg !48
  %128 = load float, ptr addrspace(3) %52, align 4, !dbg !26, !tbaa !35
  %129 = load float, ptr addrspace(3) %53, align 4, !dbg !47, !tbaa !35
  %130 = tail call float @llvm.fmuladd.f32(float %128, float %129, float %127), !dbg !48
  %131 = load float, ptr addrspace(3) %54, align 4, !dbg !26, !tbaa !35
  %132 = load float, ptr addrspace(3) %55, align 4, !dbg !47, !tbaa !35
  %133 = tail call float @llvm.fmuladd.f32(float %131, float %132, float %130), !dbg !48
  tail call void @llvm.nvvm.barrier0(), !dbg !49
  %134 = add nuw nsw i32 %63, 1, !dbg !50
  %135 = icmp eq i32 %134, %18, !dbg !24
  br i1 %135, label %56, label %61, !dbg !25, !llvm.loop !51

136:                                              ; preds = %56
  %137 = mul nsw i32 %9, %0
  %138 = add nsw i32 %137, %12
  %139 = sext i32 %138 to i64
  %140 = getelementptr inbounds float, ptr addrspace(1) %3, i64 %139
  store float %57, ptr addrspace(1) %140, align 4, !dbg !53, !tbaa !35
  br label %141, !dbg !54

141:                                              ; preds = %136, %56
  ret void, !dbg !55
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.fmuladd.f32(float, float, float) #1

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.barrier0() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.y() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.y() #1

attributes #0 = { convergent noinline norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_80" "target-features"="+ptx42,+sm_80" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { convergent nocallback nounwind }

!llvm.dbg.cu = !{!0}
!nvvm.annotations = !{!2}
!llvm.module.flags = !{!3, !4, !5, !6}
!opencl.ocl.version = !{!7}
!llvm.ident = !{!8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8}

!0 = distinct !DICompileUnit(language: DW_LANG_OpenCL, file: !1, producer: "Debian clang version 19.1.7 (3~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: DebugDirectivesOnly, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "tests/kernels/cl_matmul_tiled.cl", directory: ".")
!2 = !{ptr @cl_matmul_tiled, !"kernel", i32 1}
!3 = !{i32 7, !"Dwarf Version", i32 2}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!5 = !{i32 1, !"wchar_size", i32 4}
!6 = !{i32 7, !"frame-pointer", i32 2}
!7 = !{i32 1, i32 2}
!8 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!9 = distinct !DISubprogram(name: "cl_matmul_tiled", scope: !1, file: !1, line: 5, type: !10, scopeLine: 6, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!10 = !DISubroutineType(types: !11)
!11 = !{}
!12 = !{i32 0, i32 1, i32 1, i32 1}
!13 = !{!"none", !"none", !"none", !"none"}
!14 = !{!"int", !"float*", !"float*", !"float*"}
!15 = !{!"", !"const", !"const", !""}
!16 = !DILocation(line: 9, column: 14, scope: !9)
!17 = !DILocation(line: 9, column: 36, scope: !9)
!18 = !DILocation(line: 10, column: 15, scope: !9)
!19 = !DILocation(line: 10, column: 31, scope: !9)
!20 = !DILocation(line: 10, column: 38, scope: !9)
!21 = !DILocation(line: 11, column: 15, scope: !9)
!22 = !DILocation(line: 11, column: 31, scope: !9)
!23 = !DILocation(line: 11, column: 38, scope: !9)
!24 = !DILocation(line: 13, column: 23, scope: !9)
!25 = !DILocation(line: 13, column: 5, scope: !9)
!26 = !DILocation(line: 20, column: 20, scope: !9)
!27 = !DILocation(line: 12, column: 11, scope: !9)
!28 = !DILocation(line: 23, column: 13, scope: !9)
!29 = !DILocation(line: 23, column: 17, scope: !9)
!30 = !DILocation(line: 14, column: 20, scope: !9)
!31 = !DILocation(line: 14, column: 27, scope: !9)
!32 = !DILocation(line: 15, column: 27, scope: !9)
!33 = !DILocation(line: 16, column: 31, scope: !9)
!34 = !DILocation(line: 16, column: 44, scope: !9)
!35 = !{!36, !36, i64 0}
!36 = !{!"float", !37, i64 0}
!37 = !{!"omnipotent char", !38, i64 0}
!38 = !{!"Simple C/C++ TBAA"}
!39 = !DILocation(line: 16, column: 22, scope: !9)
!40 = !DILocation(line: 16, column: 20, scope: !9)
!41 = !DILocation(line: 17, column: 26, scope: !9)
!42 = !DILocation(line: 17, column: 30, scope: !9)
!43 = !DILocation(line: 17, column: 44, scope: !9)
!44 = !DILocation(line: 17, column: 22, scope: !9)
!45 = !DILocation(line: 17, column: 20, scope: !9)
!46 = !DILocation(line: 18, column: 9, scope: !9)
!47 = !DILocation(line: 20, column: 32, scope: !9)
!48 = !DILocation(line: 20, column: 17, scope: !9)
!49 = !DILocation(line: 21, column: 9, scope: !9)
!50 = !DILocation(line: 13, column: 48, scope: !9)
!51 = distinct !{!51, !25, !52}
!52 = !DILocation(line: 22, column: 5, scope: !9)
!53 = !DILocation(line: 24, column: 26, scope: !9)
!54 = !DILocation(line: 24, column: 9, scope: !9)
!55 = !DILocation(line: 25, column: 1, scope: !9)
