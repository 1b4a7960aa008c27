//! Control-flow graphs over parsed PTX kernels.
