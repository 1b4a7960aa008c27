from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="cell",
    ext_modules=[CUDAExtension("cell_cuda", ["cell.cpp", "cell_kernel.cu"])],
    cmdclass={"build_ext": BuildExtension},
)
