#!/usr/bin/env python3
"""Profiles built gpuFLOPBench programs with Nsight Compute and writes measurements.csv in the
layout of gpuFLOPBench's own (one row per profiled launch, the first `--per-kernel` launches of
each kernel), so that `kerncast realcode --data` reads it unchanged.

Each program runs from its own folder with the command line of gpuFLOPBench's measurement
(`exe_args`), under `ncu --clock-control none` (the GPU's own clocks), one program at a time,
each within `--program-seconds`; programs are taken in the order of `--order` until
`--deadline-seconds` have passed. Columns as gpuFLOPBench counts them: FP32 FLOPs = FADD + FMUL
+ 2 FFMA and FP64 likewise (predicated-on threads), DRAM bytes = read + written.

    measure.py --src SRC --bin BIN --measured CSV --order FILE --out OUT
"""
import argparse, csv, io, os, signal, subprocess, sys, time

METRICS = {
    "time": "gpu__time_duration.sum",
    "dram_read": "dram__bytes_read.sum",
    "dram_write": "dram__bytes_write.sum",
    "fadd": "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "fmul": "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "ffma": "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "dadd": "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
    "dmul": "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum",
    "dfma": "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
    "int": "smsp__sass_thread_inst_executed_op_integer_pred_on.sum",
}
COLUMNS = ["program", "kernel", "kernel_signature", "launch", "grid", "block", "exe_args",
           "time_ns", "dram_bytes", "sp_flops", "dp_flops", "int_ops"]


def base_name(signature):
    """`f` of `void ns::f<float, 2>(int, T1 *)`: the identifier before the template arguments
    and the parameter list, without its return type and scope (what ncu's `function` base gives)."""
    # kernels return void, so the first `<` or `(` past the first character ends the name
    end = next((i for i, c in enumerate(signature) if c in "<(" and i > 0), len(signature))
    head = signature[:end].split(" ")[-1]
    return head.split("::")[-1]


def dims(s):
    """`4x1x1` from ncu's `(4, 1, 1)`."""
    return "x".join(p.strip() for p in s.strip("() ").split(","))


def num(v):
    try:
        return float(v.replace(",", ""))
    except (ValueError, AttributeError):
        return None


def profile(program, exe, cwd, args, metrics, opts, log_dir):
    log = os.path.join(log_dir, program + ".ncu.csv")
    cmd = [opts.ncu, "--csv", "--page", "raw", "--print-units", "base",
           "--print-kernel-base", "demangled", "--clock-control", "none",
           "-c", str(opts.max_launches)] + opts.kill + ["--metrics", ",".join(metrics.values()),
           "--log-file", log, exe] + args.split()
    t0 = time.time()
    try:
        p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True, start_new_session=True)
        _, err = p.communicate(timeout=opts.program_seconds)
        status = f"rc={p.returncode}"
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        status = "timeout"
    rows = []
    try:
        text = open(log, errors="replace").read()
    except OSError:
        text = ""
    start = text.find('"ID"')
    if start >= 0:
        body = [l for l in text[start:].splitlines() if l.startswith('"')]
        rdr = csv.DictReader(io.StringIO("\n".join(body)))
        seen = {}
        for r in rdr:
            sig = r.get("Kernel Name", "")
            if not r.get("ID", "").strip().isdigit():
                continue  # the units row
            seen[sig] = seen.get(sig, 0) + 1
            if seen[sig] > opts.per_kernel:
                continue
            g = {k: num(r.get(m)) for k, m in metrics.items()}
            f32 = None if g.get("fadd") is None else g["fadd"] + g["fmul"] + 2 * g["ffma"]
            f64 = None if g.get("dadd") is None else g["dadd"] + g["dmul"] + 2 * g["dfma"]
            dram = None if g.get("dram_read") is None else g["dram_read"] + g["dram_write"]
            rows.append([program, base_name(sig), sig, seen[sig], dims(r.get("Grid Size", "")),
                         dims(r.get("Block Size", "")), args, g.get("time"), dram, f32, f64,
                         g.get("int")])
    return rows, f"{status} {time.time() - t0:.1f}s {len(rows)} rows"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--measured", required=True, help="gpuFLOPBench's measurements.csv (exe_args)")
    ap.add_argument("--order", required=True, help="programs, one per line, in the order to run")
    ap.add_argument("--out", required=True)
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--per-kernel", type=int, default=4)
    ap.add_argument("--max-launches", type=int, default=60)
    ap.add_argument("--program-seconds", type=float, default=30)
    ap.add_argument("--deadline-seconds", type=float, default=400)
    opts = ap.parse_args()
    # end the program once its launches are profiled: the rest of its run measures nothing
    opts.kill = ["--kill", "on"]
    t0 = time.time()
    exe_args = {}
    for r in csv.DictReader(open(opts.measured)):
        exe_args.setdefault(r["program"], r["exe_args"])
    metrics = dict(METRICS)
    os.makedirs(opts.out, exist_ok=True)
    log_dir = os.path.join(opts.out, "ncu")
    os.makedirs(log_dir, exist_ok=True)
    order = [l.strip() for l in open(opts.order) if l.strip()]
    out_path = os.path.join(opts.out, "measurements.csv")
    with open(out_path, "w", newline="") as f, open(os.path.join(opts.out, "programs.txt"), "w") as st:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for program in order:
            if time.time() - t0 > opts.deadline_seconds:
                st.write(f"{program}: not run (deadline)\n")
                continue
            exe = os.path.abspath(os.path.join(opts.bin, program))
            if not os.path.exists(exe) or program not in exe_args:
                st.write(f"{program}: not built\n")
                continue
            run = lambda: profile(program, exe, os.path.join(opts.src, program),
                                  exe_args[program], metrics, opts, log_dir)
            rows, status = run()
            log = lambda: open(os.path.join(log_dir, program + ".ncu.csv"), errors="replace").read()
            if not rows and opts.kill and "kill" in log():
                opts.kill = []  # this ncu cannot end the program after the last launch
                rows, status = run()
            if not rows and "int" in metrics and "integer" in log():
                del metrics["int"]  # this ncu does not know the metric: measure without it
                rows, status = run()
            w.writerows(rows)
            f.flush()
            st.write(f"{program}: {status}\n")
            st.flush()
            print(f"{time.time() - t0:6.0f}s {program}: {status}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
