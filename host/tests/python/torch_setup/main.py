# kerncast-expect
# cell_kernel.cu:24: <<<>>> void cell_kernel<float>(at::GenericPackedTensorAccessor<float, (unsigned long)3, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<float, (unsigned long)2, at::RestrictPtrTraits, int>) <<<(4,32,1), (256,1,1), 0>>> x20 {gates={size0:32,size1:2,size2:1024,stride0:2048,stride1:1024,stride2:1} new_h={size0:32,size1:1024,stride0:1024,stride1:1}}
# cell_kernel.cu:24: unreached void cell_kernel<double>(at::GenericPackedTensorAccessor<double, (unsigned long)3, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<double, (unsigned long)2, at::RestrictPtrTraits, int>) ?{never made: the program launches another instance here, `cell_kernel<float>` (an `AT_DISPATCH` or a template picks it by the values the program has)}
# end
# A module a setup.py builds (CUDAExtension), imported by name: its binding runs with the tensors' shapes.
# A launch inside AT_DISPATCH is placed at the macro's line, where clang expands it.
import torch
import cell_cuda as cell

W = torch.randn(2048, 1024, device="cuda")
c = torch.randn(32, 1024, device="cuda")
for _ in range(20):
    h, g = cell.forward(W, c)
