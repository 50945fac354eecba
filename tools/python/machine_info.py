"""What machine a measurement ran on, for benchmark reports and training logs: the CPU's name,
its vector ISA flags and the load average."""
import os
import platform
import subprocess

# The vector ISA extensions the kernels of attnrt or llama.cpp can use, in the order a report
# lists them (isa_flags).
ISA_FLAGS = ("sse4_2", "avx", "f16c", "fma", "avx2", "avx_vnni", "avx512f", "avx512bw",
             "avx512vl", "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_int8", "asimd",
             "asimddp", "i8mm", "sve", "sve2")
# The few that say how wide the vectors are, for a one-line CPU name (cpu_summary).
WIDEST_VECTOR_FLAGS = ("avx512f", "avx512bw", "avx512vl", "avx2", "fma", "neon", "asimd", "sve")


def cpu_model():
    """The CPU's model name from /proc/cpuinfo with its x86 family and model numbers (a
    virtual machine may call an AVX2-only Zen 3 and an AVX-512 Zen 5 both "AMD EPYC"), else
    what platform knows."""
    fields = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    break  # the first processor's block is enough
                key, _, value = line.partition(":")
                fields[key.strip()] = value.strip()
    except OSError:
        pass
    name = fields.get("model name")
    if not name:
        return platform.processor() or platform.machine() or "unknown"
    if "cpu family" in fields and "model" in fields:
        name += f" (family {fields['cpu family']} model {fields['model']})"
    return name


def load_average():
    """The 1, 5 and 15 minute load averages as text ("unknown" where there are none)."""
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def cpu_flags():
    """The set of feature flags /proc/cpuinfo lists for the first CPU ("flags" on x86,
    "Features" on Arm); empty where it cannot be read."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("flags", "Features")):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def isa_flags():
    """The ISA_FLAGS this CPU has, in ISA_FLAGS' order."""
    have = cpu_flags()
    return [flag for flag in ISA_FLAGS if flag in have]


def cpu_summary():
    """lscpu's model name (cpu_model's where lscpu says none), the CPU count and the widest
    vector flags: one line that tells two machines apart in a report."""
    name = cpu_model()
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                name = line.split(":", 1)[1].strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    have = cpu_flags()
    wide = [flag for flag in WIDEST_VECTOR_FLAGS if flag in have]
    return f"{name} ({os.cpu_count()} CPUs; {', '.join(wide) or 'no AVX2/AVX-512'})"


def uptime():
    """`uptime`'s line (the time, the users and the load averages), or the load averages alone
    where there is no uptime program."""
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return f"load average: {load_average()}"
