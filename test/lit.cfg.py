# lit configuration for the FMAG test suite.
import os
import lit.formats

config.name = "FMAG"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".fir", ".fmas", ".sl", ".test", ".txt", ".mtlx"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fmag_obj_root, "test")

path = [config.fmag_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))]
config.environment["PATH"] = os.pathsep.join(path)
# Sanitizer builds: fail on the first report, and do not let leaks pass silently.
config.environment["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=0:exitcode=99"
config.environment["LSAN_OPTIONS"] = "suppressions=" + os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "utils", "lsan.supp")
config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1:exitcode=99"

# The long run (scripts/test-long.sh, CI): tests that trim their work in the default
# suite do all of it (docs/Testing.md).
if os.environ.get("FMAG_TEST_LONG") == "1":
    config.environment["FMAG_TEST_LONG"] = "1"

config.substitutions.append(("%fmag_src", config.fmag_src_root))
config.substitutions.append(("%fmag_obj", config.fmag_obj_root))
config.substitutions.append(("%inputs", os.path.join(config.fmag_src_root, "test", "Inputs")))

for tool in ["fmag-opt", "fmag-run", "fmag-as", "slc", "superopt", "fmag-difftest", "fmag-accuracy"]:
    if os.path.exists(os.path.join(config.fmag_tools_dir, tool)):
        config.available_features.add(tool)
# Exhaustive proofs over every float32 take seconds in a normal build and many
# minutes under ASan; tests that only exist to run one mark themselves
# `UNSUPPORTED: asan` (their bad-input and parser tests still run there).
if config.fmag_sanitize.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("asan")

# GPU runners: probe each once through fmag-run. A missing driver makes the tests that
# need it UNSUPPORTED (lit prints why); in CI (CI=true) a missing Vulkan runner is an
# error instead, since CI always has lavapipe (scripts/deps.sh) and a skip there would
# hide a broken runner. Sanitizer builds only skip.
import subprocess
import tempfile

def _probe_runner(backend):
    tool = os.path.join(config.fmag_tools_dir, "fmag-run")
    if not os.path.exists(tool):
        return "fmag-run not built"
    with tempfile.NamedTemporaryFile("w", suffix=".fmas", delete=False) as f:
        f.write(".def probe, 1, 1\n    %r0 = fmag %r0, 2, 1, 1\n")
        name = f.name
    try:
        p = subprocess.run([tool, "--backend=" + backend, name, "--in", "3"],
                           capture_output=True, text=True, timeout=120)
    except Exception as e:  # noqa: BLE001 - any failure means: no usable driver
        return str(e)
    finally:
        os.unlink(name)
    if p.returncode == 0 and p.stdout.strip() == "7":
        return None
    return (p.stderr or p.stdout).strip().replace("fmag-run: error: ", "")

for _backend, _features, _label in (("vulkan", ("vulkan-driver", "vulkan"), "Vulkan"),
                                    ("cuda", ("cuda-driver",), "CUDA")):
    _why = _probe_runner(_backend)
    if _why is None:
        for _f in _features:
            config.available_features.add(_f)
        continue
    _prefix = "no %s driver" % _label
    _msg = _why if _why.lower().startswith(_prefix.lower()) else "%s: %s" % (_prefix, _why)
    if (_backend == "vulkan" and os.environ.get("CI") == "true"
            and "asan" not in config.available_features):
        lit_config.fatal("CI needs the Vulkan runner (Mesa's lavapipe, scripts/deps.sh): %s" % _msg)
    lit_config.note("GPU tests: skipped: %s" % _msg)
