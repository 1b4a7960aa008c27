#!/usr/bin/env python3
"""Builds gpuFLOPBench's programs for an sm_90 GPU with nvcc, from their compilation database.

Each clang++ command of `compile_commands.json` becomes the nvcc command that builds the same
source for `--arch` (the -I/-D flags kept, C++17 for CUDA 13's headers, clang-only flags mapped
or dropped); the objects of one program are linked into `OUT/bin/<program>`. The nvcc commands
are written as a compilation database of their own (`--database`, default
`OUT/compile_commands.json`), so that kerncast lowers each source as the measured binary was
built.

    build.py --data ../shared/data/gpuflopbench --nvcc .toolchain/bin/nvcc --out .gpucheck
"""
import argparse, json, os, shlex, subprocess, sys
from concurrent.futures import ThreadPoolExecutor


def nvcc_words(clang_words, arch):
    """The nvcc flags that stand for one clang++ CUDA command's flags (file and output excluded)."""
    out, rdc, omp = [], False, False
    it = iter(clang_words[1:])
    for w in it:
        if w in ("-x",):
            next(it, None)
            continue
        if w in ("-c", "-Wno-c++11-narrowing") or w.startswith("--cuda-path") \
                or w.startswith("--cuda-gpu-arch") or w.startswith("src/"):
            continue
        if w == "-fgpu-rdc":
            rdc = True
            continue
        if w.startswith("-fopenmp"):
            omp = True
            continue
        if w.startswith("-std="):
            continue  # CUDA 13's Thrust, CUB and libcu++ need C++17 (set below)
        out.append(w)
    if rdc:
        out.append("-rdc=true")
    if omp:
        out += ["-Xcompiler", "-fopenmp"]
    # clang accepts calling constexpr host functions and annotated lambdas in device code;
    # nvcc needs these flags for the same sources
    out += ["-std=c++17", "--expt-relaxed-constexpr", "--extended-lambda", f"-arch={arch}"]
    return out, rdc, omp


def makefile_libs(folder):
    """The -l libraries a program's Makefile links (its LDFLAGS)."""
    libs = []
    try:
        for line in open(os.path.join(folder, "Makefile")):
            s = line.strip()
            if s.startswith("LDFLAGS"):
                libs += [w for w in s.split("=", 1)[1].split() if w.startswith("-l")]
    except OSError:
        pass
    return libs


def build(program, entries, args):
    objdir = os.path.join(args.out, "obj", program)
    os.makedirs(objdir, exist_ok=True)
    objs, rdc, omp, log = [], False, False, []
    for e in entries:
        flags, r, o = nvcc_words(shlex.split(e["command"].replace("$CUDA_PATH", "CUDA")), args.arch)
        rdc |= r
        omp |= o
        obj = os.path.join(objdir, os.path.basename(e["file"]) + ".o")
        cmd = [args.nvcc] + flags + ["-x", "cu", "-c", e["file"], "-o", obj]
        p = subprocess.run(cmd, cwd=args.data, capture_output=True, text=True)
        log.append(" ".join(cmd) + "\n" + p.stdout + p.stderr)
        if p.returncode != 0:
            return program, False, "\n".join(log)
        objs.append(obj)
    exe = os.path.join(args.out, "bin", program)
    libs = makefile_libs(os.path.join(args.data, "src", program))

    def link(objs):
        cmd = [args.nvcc, f"-arch={args.arch}"] + (["-rdc=true"] if rdc else []) \
            + (["-Xcompiler", "-fopenmp"] if omp else []) + objs + ["-o", exe] + libs
        p = subprocess.run(cmd, capture_output=True, text=True)
        log.append(" ".join(cmd) + "\n" + p.stdout + p.stderr)
        return p.returncode == 0

    ok = link(objs)
    if not ok:
        # the database lists the CUDA sources only: add the program's host C/C++ files (often
        # the one with `main`) and link again
        folder = os.path.join(args.data, "src", program)
        listed = {os.path.basename(e["file"]) for e in entries}
        for name in sorted(os.listdir(folder)):
            if name.endswith((".cpp", ".cc", ".c")) and name not in listed:
                obj = os.path.join(objdir, name + ".o")
                cmd = [args.nvcc, "-O3", "-std=c++17", "-I" + folder, "-c",
                       os.path.join(folder, name), "-o", obj]
                p = subprocess.run(cmd, capture_output=True, text=True)
                log.append(" ".join(cmd) + "\n" + p.stdout + p.stderr)
                if p.returncode == 0:
                    objs.append(obj)
        ok = link(objs)
    if ok:
        subprocess.run(["strip", exe])
    return program, ok, "\n".join(log)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--program", action="append")
    ap.add_argument("--database", help="write the nvcc compilation database here "
                    "(default: OUT/compile_commands.json); its `directory` points at --data")
    ap.add_argument("--no-build", action="store_true", help="only write the database")
    args = ap.parse_args()
    args.data, args.out = os.path.abspath(args.data), os.path.abspath(args.out)
    if os.sep in args.nvcc:  # a path, not a name looked up on PATH
        args.nvcc = os.path.abspath(args.nvcc)
    db = json.load(open(os.path.join(args.data, "compile_commands.json")))
    by_program = {}
    for e in db:
        if not args.program or e["program"] in args.program:
            by_program.setdefault(e["program"], []).append(e)
    os.makedirs(os.path.join(args.out, "bin"), exist_ok=True)
    os.makedirs(os.path.join(args.out, "log"), exist_ok=True)
    ok = 0
    with ThreadPoolExecutor(args.jobs) as pool:
        jobs = [] if args.no_build else by_program.items()
        for program, good, log in pool.map(lambda kv: build(kv[0], kv[1], args), jobs):
            ok += good
            with open(os.path.join(args.out, "log", program + ".txt"), "w") as f:
                f.write(log)
            print(("built " if good else "FAILED ") + program, flush=True)
    database = os.path.abspath(args.database or os.path.join(args.out, "compile_commands.json"))
    directory = os.path.relpath(args.data, os.path.dirname(database))
    out_db = []
    for program, entries in sorted(by_program.items()):
        for e in entries:
            flags, _, _ = nvcc_words(shlex.split(e["command"].replace("$CUDA_PATH", "CUDA")), args.arch)
            cmd = ["nvcc"] + flags + ["-x", "cu", "-c", e["file"]]
            out_db.append({"directory": directory, "file": e["file"], "program": program,
                           "command": " ".join(shlex.quote(w) for w in cmd)})
    with open(database, "w") as f:
        json.dump(out_db, f, indent=1)
    if not args.no_build:
        print(f"{ok} of {len(by_program)} programs built", flush=True)


if __name__ == "__main__":
    sys.exit(main())
