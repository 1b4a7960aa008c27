; ModuleID = 'tests/kernels/cl_reduce_local.cl'
source_filename = "tests/kernels/cl_reduce_local.cl"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@cl_reduce_local.buf = internal unnamed_addr addrspace(3) global [256 x float] undef, align 4

; Function Attrs: convergent noinline norecurse nounwind
define dso_local spir_kernel void @cl_reduce_local(i32 noundef %0, ptr addrspace(1) nocapture noundef readonly align 4 %1, ptr addrspace(1) nocapture noundef writeonly align 4 %2) local_unnamed_addr #0 !dbg !9 !kernel_arg_addr_space !12 !kernel_arg_access_qual !13 !kernel_arg_type !14 !kernel_arg_base_type !14 !kernel_arg_type_qual !15 {
  %4 = tail call range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !16
  %5 = zext nneg i32 %4 to i64, !dbg !16
  %6 = tail call range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !17
  %7 = tail call range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !17
  %8 = zext nneg i32 %6 to i64, !dbg !17
  %9 = zext nneg i32 %7 to i64, !dbg !17
  %10 = mul nuw nsw i64 %8, %9, !dbg !17
  %11 = add nuw nsw i64 %10, %5, !dbg !17
  %12 = trunc i64 %11 to i32, !dbg !17
  %13 = icmp slt i32 %12, %0, !dbg !18
  br i1 %13, label %14, label %19, !dbg !19

14:                                               ; preds = %3
  %15 = shl i64 %11, 32
  %16 = ashr exact i64 %15, 30
  %17 = getelementptr inbounds i8, ptr addrspace(1) %1, i64 %16
  %18 = load float, ptr addrspace(1) %17, align 4, !dbg !20, !tbaa !21
  br label %19, !dbg !19

19:                                               ; preds = %3, %14
  %20 = phi float [ %18, %14 ], [ 0.000000e+00, %3 ], !dbg !19
  %21 = getelementptr inbounds [256 x float], ptr addrspace(3) @cl_reduce_local.buf, i64 0, i64 %5, !dbg !25
  store float %20, ptr addrspace(3) %21, align 4, !dbg !26, !tbaa !21
  tail call void @llvm.nvvm.barrier0(), !dbg !27
  %22 = icmp ult i32 %4, 128, !dbg !28
  br i1 %22, label %23, label %30, !dbg !29

23:                                               ; preds = %19
  %24 = or disjoint i32 %4, 128
  %25 = zext nneg i32 %24 to i64
  %26 = getelementptr inbounds [256 x float], ptr addrspace(3) @cl_reduce_local.buf, i64 0, i64 %25
  %27 = load float, ptr addrspace(3) %26, align 4, !dbg !30, !tbaa !21
  %28 = load float, ptr addrspace(3) %21, align 4, !dbg !31, !tbaa !21
  %29 = fadd float %27, %28, !dbg !31
  store float %29, ptr addrspace(3) %21, align 4, !dbg !31, !tbaa !21
  br label %30, !dbg !32

30:                                               ; preds = %23, %19
  tail call void @llvm.nvvm.barrier0(), !dbg !33
  %31 = icmp ult i32 %4, 64, !dbg !28
  br i1 %31, label %32, label %39, !dbg !29

32:                                               ; preds = %30
  %33 = or disjoint i32 %4, 64
  %34 = zext nneg i32 %33 to i64
  %35 = getelementptr inbounds [256 x float], ptr addrspace(3) @cl_reduce_local.buf, i64 0, i64 %34
  %36 = load float, ptr addrspace(3) %35, align 4, !dbg !30, !tbaa !21
  %37 = load float, ptr addrspace(3) %21, align 4, !dbg !31, !tbaa !21
  %38 = fadd float %36, %37, !dbg !31
  store float %38, ptr addrspace(3) %21, align 4, !dbg !31, !tbaa !21
  br label %39, !dbg !32

39:                                               ; preds = %32, %30
  tail call void @llvm.nvvm.barrier0(), !dbg !33
  %40 = icmp ult i32 %4, 32, !dbg !28
  br i1 %40, label %41, label %48, !dbg !29

41:                                               ; preds = %39
  %42 = or disjoint i32 %4, 32
  %43 = zext nneg i32 %42 to i64
  %44 = getelementptr inbounds [256 x float], ptr addrspace(3) @cl_reduce_local.buf, i64 0, i64 %43
  %45 = load float, ptr addrspace(3) %44, align 4, !dbg !30, !tbaa !21
  %46 = load float, ptr addrspace(3) %21, align 4, !dbg !31, !tbaa !21
  %47 = fadd float %45, %46, !dbg !31
  store float %47, ptr addrspace(3) %21, align 4, !dbg !31, !tbaa !21
  br label %48, !dbg !32

48:                                               ; preds = %41, %39
  tail call void @llvm.nvvm.barrier0(), !dbg !33
  %49 = icmp ult i32 %4, 16, !dbg !28
  br i1 %49, label %50, label %57, !dbg !29

50:                                               ; preds = %48
  %51 = or disjoint i32 %4, 16
  %52 = zext nneg i32 %51 to i64
  %53 = getelementptr inbounds [256 x float], ptr addrspace(3) @cl_reduce_local.buf, i64 0, i64 %52
  %54 = load float, ptr addrspace(3) %53, align 4, !dbg !30, !tbaa !21
  %55 = load float, ptr addrspace(3) %21, align 4, !dbg !31, !tbaa !21
  %56 = fadd float %54, %55, !dbg !31
  store float %56, ptr addrspace(3) %21, align 4, !dbg !31, !tbaa !21
  br label %57, !dbg !32

57:                                               ; preds = %50, %48
  tail call void @llvm.nvvm.barrier0(), !dbg !33
  %58 = icmp ult i32 %4, 8, !dbg !28
  br i1 %58, label %59, label %66, !dbg !29

59:                                               ; preds = %57
  %60 = or disjoint i32 %4, 8
  %61 = zext nneg i32 %60 to i64
  %62 = getelementptr inbounds [256 x float], ptr addrspace(3) @cl_reduce_local.buf, i64 0, i64 %61
  %63 = load float, ptr addrspace(3) %62, align 4, !dbg !30, !tbaa !21
  %64 = load float, ptr addrspace(3) %21, align 4, !dbg !31, !tbaa !21
  %65 = fadd float %63, %64, !dbg !31
  store float %65, ptr addrspace(3) %21, align 4, !dbg !31, !tbaa !21
  br label %66, !dbg !32

66:                                               ; preds = %59, %57
  tail call void @llvm.nvvm.barrier0(), !dbg !33
  %67 = icmp ult i32 %4, 4, !dbg !28
  br i1 %67, label %68, label %75, !dbg !29

68:                                               ; preds = %66
  %69 = or disjoint i32 %4, 4
  %70 = zext nneg i32 %69 to i64
  %71 = getelementptr inbounds [256 x float], ptr addrspace(3) @cl_reduce_local.buf, i64 0, i64 %70
  %72 = load float, ptr addrspace(3) %71, align 4, !dbg !30, !tbaa !21
  %73 = load float, ptr addrspace(3) %21, align 4, !dbg !31, !tbaa !21
  %74 = fadd float %72, %73, !dbg !31
  store float %74, ptr addrspace(3) %21, align 4, !dbg !31, !tbaa !21
  br label %75, !dbg !32

75:                                               ; preds = %68, %66
  tail call void @llvm.nvvm.barrier0(), !dbg !33
  %76 = icmp ult i32 %4, 2, !dbg !28
  br i1 %76, label %77, label %84, !dbg !29

77:                                               ; preds = %75
  %78 = or disjoint i32 %4, 2
  %79 = zext nneg i32 %78 to i64
  %80 = getelementptr inbounds [256 x float], ptr addrspace(3) @cl_reduce_local.buf, i64 0, i64 %79
  %81 = load float, ptr addrspace(3) %80, align 4, !dbg !30, !tbaa !21
  %82 = load float, ptr addrspace(3) %21, align 4, !dbg !31, !tbaa !21
  %83 = fadd float %81, %82, !dbg !31
  store float %83, ptr addrspace(3) %21, align 4, !dbg !31, !tbaa !21
  br label %84, !dbg !32

84:                                               ; preds = %77, %75
  tail call void @llvm.nvvm.barrier0(), !dbg !33
  %85 = icmp eq i32 %4, 0, !dbg !28
  br i1 %85, label %86, label %90, !dbg !29

86:                                               ; preds = %84
  %87 = load float, ptr addrspace(3) getelementptr inbounds (i8, ptr addrspace(3) @cl_reduce_local.buf, i64 4), align 4, !dbg !30, !tbaa !21
  %88 = load float, ptr addrspace(3) %21, align 4, !dbg !31, !tbaa !21
  %89 = fadd float %87, %88, !dbg !31
  store float %89, ptr addrspace(3) %21, align 4, !dbg !31, !tbaa !21
  br label %90, !dbg !32

90:                                               ; preds = %86, %84
  tail call void @llvm.nvvm.barrier0(), !dbg !33
  %91 = icmp eq i32 %4, 0, !dbg !34
  br i1 %91, label %92, label %95, !dbg !35

92:                                               ; preds = %90
  %93 = getelementptr inbounds float, ptr addrspace(1) %2, i64 %9
  %94 = load float, ptr addrspace(3) @cl_reduce_local.buf, align 4, !dbg !36, !tbaa !21
  store float %94, ptr addrspace(1) %93, align 4, !dbg !37, !tbaa !21
  br label %95, !dbg !38

95:                                               ; preds = %92, %90
  ret void, !dbg !39
}

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.barrier0() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #2

attributes #0 = { convergent noinline norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_80" "target-features"="+ptx42,+sm_80" "uniform-work-group-size"="true" }
attributes #1 = { convergent nocallback nounwind }
attributes #2 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.dbg.cu = !{!0}
!nvvm.annotations = !{!2}
!llvm.module.flags = !{!3, !4, !5, !6}
!opencl.ocl.version = !{!7}
!llvm.ident = !{!8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8, !8}

!0 = distinct !DICompileUnit(language: DW_LANG_OpenCL, file: !1, producer: "Debian clang version 19.1.7 (3~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: DebugDirectivesOnly, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "tests/kernels/cl_reduce_local.cl", directory: ".")
!2 = !{ptr @cl_reduce_local, !"kernel", i32 1}
!3 = !{i32 7, !"Dwarf Version", i32 2}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!5 = !{i32 1, !"wchar_size", i32 4}
!6 = !{i32 7, !"frame-pointer", i32 2}
!7 = !{i32 1, i32 2}
!8 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!9 = distinct !DISubprogram(name: "cl_reduce_local", scope: !1, file: !1, line: 4, type: !10, scopeLine: 5, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!10 = !DISubroutineType(types: !11)
!11 = !{}
!12 = !{i32 0, i32 1, i32 1}
!13 = !{!"none", !"none", !"none"}
!14 = !{!"int", !"float*", !"float*"}
!15 = !{!"", !"const", !""}
!16 = !DILocation(line: 7, column: 15, scope: !9)
!17 = !DILocation(line: 8, column: 13, scope: !9)
!18 = !DILocation(line: 9, column: 19, scope: !9)
!19 = !DILocation(line: 9, column: 16, scope: !9)
!20 = !DILocation(line: 9, column: 26, scope: !9)
!21 = !{!22, !22, i64 0}
!22 = !{!"float", !23, i64 0}
!23 = !{!"omnipotent char", !24, i64 0}
!24 = !{!"Simple C/C++ TBAA"}
!25 = !DILocation(line: 9, column: 5, scope: !9)
!26 = !DILocation(line: 9, column: 14, scope: !9)
!27 = !DILocation(line: 10, column: 5, scope: !9)
!28 = !DILocation(line: 12, column: 17, scope: !9)
!29 = !DILocation(line: 12, column: 13, scope: !9)
!30 = !DILocation(line: 13, column: 25, scope: !9)
!31 = !DILocation(line: 13, column: 22, scope: !9)
!32 = !DILocation(line: 13, column: 13, scope: !9)
!33 = !DILocation(line: 14, column: 9, scope: !9)
!34 = !DILocation(line: 16, column: 13, scope: !9)
!35 = !DILocation(line: 16, column: 9, scope: !9)
!36 = !DILocation(line: 17, column: 36, scope: !9)
!37 = !DILocation(line: 17, column: 34, scope: !9)
!38 = !DILocation(line: 17, column: 9, scope: !9)
!39 = !DILocation(line: 18, column: 1, scope: !9)
