#!/bin/bash
# The device check: reads the GPU's properties and profiles the prebuilt gpuFLOPBench programs
# (`build.py`) with Nsight Compute (`measure.py`). Run from the repository root on the GPU
# machine with `.gpucheck` (src/, bin.tar.xz, measurements.csv, order.txt, props) beside it;
# results go to $OUT.
set -u
here=validation/h200
g=.gpucheck
out=${OUT:-/tmp/out}
mkdir -p "$out"
exec > >(tee "$out/run.log") 2>&1
date
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,clocks.sm,clocks.mem,power.limit,memory.total --format=csv > "$out/nvidia-smi.csv"
cat "$out/nvidia-smi.csv"
command -v ncu > /dev/null || export PATH="$PATH:$(ls -d /opt/nvidia/nsight-compute/*/ | tail -1)"
ncu --version | tail -1
mkdir -p $g/bin && tar -xJf $g/bin.tar.xz -C $g/bin
if ! $g/props > "$out/props.json"; then
  # the binaries built elsewhere do not run here: build them with this machine's nvcc
  echo "prebuilt props failed; rebuilding here"
  nvcc -O2 -arch=sm_90 $here/props.cu -o $g/props && $g/props > "$out/props.json"
  rm -rf $g/bin
  python3 $here/build.py --data $g --nvcc nvcc --out $g --jobs 16 | tail -3
fi
cat "$out/props.json"
PYTHONUNBUFFERED=1 python3 $here/measure.py --src $g/src --bin $g/bin --measured $g/measurements.csv \
  --order $g/${ORDER:-order.txt} --out "$out" --deadline-seconds "${DEADLINE:-380}" --program-seconds ${PROGRAM_SECONDS:-25} --max-launches ${MAX_LAUNCHES:-60}
tar -czf "$out/ncu.tgz" -C "$out" ncu && rm -rf "$out/ncu"
wc -l "$out/measurements.csv"
date
