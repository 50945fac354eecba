"""What machine a measurement ran on, for benchmark reports and training logs."""
import os
import platform


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
