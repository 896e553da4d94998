# lit configuration for the FMAG test suite.
import os
import lit.formats

config.name = "FMAG"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".fir", ".fmas", ".sl", ".test", ".txt"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fmag_obj_root, "test")

path = [config.fmag_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))]
config.environment["PATH"] = os.pathsep.join(path)
# Sanitizer builds: fail on the first report, and do not let leaks pass silently.
config.environment["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=0:exitcode=99"
config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1:exitcode=99"

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
if os.environ.get("FMAG_HAVE_VULKAN") == "1":
    config.available_features.add("vulkan")
