# kerncast-expect
# ext.cu:38: <<<>>> void add_kernel<c10::Half>(c10::Half const*, c10::Half const*, c10::Half*, long) <<<(4096,1,1), (256,1,1), 0>>> x5 {a=ptr b=ptr n=1048576 out=ptr}
# ext.cu:50: <<<>>> void row_scale<double>(at::GenericPackedTensorAccessor<double, (unsigned long)2, at::RestrictPtrTraits, int>, float) <<<(16,64,1), (256,1,1), 0>>> x1 {s=0.5 x={size0:64,size1:4096,stride0:4096,stride1:1}}
# ext.cu:50: unreached void row_scale<float>(at::GenericPackedTensorAccessor<float, (unsigned long)2, at::RestrictPtrTraits, int>, float) ?{never made: the program launches another instance here, `row_scale<double>` (an `AT_DISPATCH` or a template picks it by the values the program has)}
# ext.cu:38: unreached void add_kernel<double>(double const*, double const*, double*, long) ?{never made: the program launches another instance here, `add_kernel<c10::Half>` (an `AT_DISPATCH` or a template picks it by the values the program has)}
# ext.cu:38: unreached void add_kernel<float>(float const*, float const*, float*, long) ?{never made: the program launches another instance here, `add_kernel<c10::Half>` (an `AT_DISPATCH` or a template picks it by the values the program has)}
# end
# An extension built from a file with load(): AT_DISPATCH runs the instance of the tensor's dtype.
# A launch inside AT_DISPATCH is placed at the macro's line, where clang expands it.
import torch
from torch.utils.cpp_extension import load

ext = load(name="ext", sources=["ext.cu"])
a = torch.randn(1 << 20, device="cuda").half()
b = torch.ones_like(a)
for _ in range(5):
    c = ext.add(a, b)
x = torch.randn(64, 4096, device="cuda", dtype=torch.float64)
ext.scale_rows(x, 0.5)
