#!/usr/bin/env bash
# Install llama-cpp-python (the real LLM server of the in-context-learning tests) so that it runs on any
# x86-64 CPU: a native build (-march=native) on a CPU with AVX-512-FP16/AMX crashes on the first token
# (a general-protection fault in libggml-cpu.so), so GGML_NATIVE is off. The portable wheel is built once
# and kept in a folder named for its version and flags; pip's own wheel cache is bypassed, since it may
# hold a native build of the same version.
#   usage: scripts/install_llama_cpp.sh        (into the active Python environment)
set -euo pipefail
VERSION="${LLAMA_CPP_VERSION:-0.3.36}"
WHEELS="${DIALECTBENCH_WHEELS:-${XDG_CACHE_HOME:-$HOME/.cache}/dialectbench/wheels}/llama-cpp-python-$VERSION-portable"
if ! ls "$WHEELS"/llama_cpp_python-"$VERSION"-*.whl >/dev/null 2>&1; then
  echo "building llama-cpp-python $VERSION without -march=native (once; ~3-6 min on 2 cores) into $WHEELS" >&2
  mkdir -p "$WHEELS"
  CMAKE_ARGS="-DGGML_NATIVE=OFF" python -m pip wheel -q --no-deps --no-cache-dir --no-binary llama-cpp-python \
    "llama-cpp-python==$VERSION" -w "$WHEELS"
fi
# for one version pip takes a wheel over the index's source archive, so this installs the portable build
python -m pip install -q --find-links "$WHEELS" "llama-cpp-python[server]==$VERSION"
python -c "import llama_cpp, sys; sys.exit(llama_cpp.__version__ != '$VERSION')"
